package io.jfabric.bench.netty;

import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * bench/netty's {@code @pinned} transports: a thread factory whose threads each stay on one CPU, taking the CPUs the
 * creating thread may use in turn, so that a group of two event loops on a two-CPU machine has one loop per CPU
 * whatever the scheduler would have chosen (docs/netty-performance.md, "Why a unary round is fast or slow").
 *
 * <p>A thread that cannot be pinned when it starts (the process's CPUs changed since the factory was made) runs
 * unpinned and says so in a warning, rather than leave its event loop without a thread.
 */
final class PinnedThreadFactory implements ThreadFactory {
    private static final System.Logger LOG = System.getLogger(PinnedThreadFactory.class.getName());

    private final ThreadFactory threads;
    private final List<Integer> cpus;
    private final AtomicInteger next = new AtomicInteger();

    /** Names its threads as Netty's {@link DefaultThreadFactory} does. */
    PinnedThreadFactory(String poolName) {
        Throwable cause = CpuAffinity.unavailabilityCause();
        if (cause != null) {
            throw new UnsupportedOperationException("threads cannot be pinned here: " + cause, cause);
        }
        this.threads = new DefaultThreadFactory(poolName);
        this.cpus = CpuAffinity.allowedCpus();
    }

    /** The CPUs the threads go to, in the order they are handed out. */
    List<Integer> cpus() {
        return cpus;
    }

    @Override
    public Thread newThread(Runnable task) {
        int cpu = cpus.get(Math.floorMod(next.getAndIncrement(), cpus.size()));
        return threads.newThread(() -> {
            try {
                CpuAffinity.pinCurrentThread(cpu);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, Thread.currentThread().getName() + " runs unpinned", e);
            }
            task.run();
        });
    }
}
