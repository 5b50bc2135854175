package io.jfabric.bench.netty;

import io.jfabric.netty.JfabricEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The {@code @pinned} transports' threads run on the CPUs the factory hands out, in turn, as the kernel reports them
 * ({@code Cpus_allowed_list} in {@code /proc/thread-self/status}, read independently of the factory's own calls).
 */
@Timeout(60)
class PinnedThreadFactoryTest {
    @BeforeEach
    void linux() {
        assumeTrue(CpuAffinity.unavailabilityCause() == null,
                () -> "no sched_setaffinity here: " + CpuAffinity.unavailabilityCause());
    }

    @Test
    void eachThreadRunsOnlyOnTheCpuHandedToIt() throws Exception {
        PinnedThreadFactory factory = new PinnedThreadFactory("pinned-test");
        List<Integer> cpus = factory.cpus();
        assertEquals(cpuList(statusLine("Cpus_allowed_list")), cpus, "the factory takes every CPU this thread may use");
        int threads = cpus.size() + 1;  // one more than CPUs: the first CPU comes round again
        List<CompletableFuture<String>> seen = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            CompletableFuture<String> allowed = new CompletableFuture<>();
            seen.add(allowed);
            Thread t = factory.newThread(() -> {
                try {
                    allowed.complete(statusLine("Cpus_allowed_list"));
                } catch (Throwable e) {
                    allowed.completeExceptionally(e);
                }
            });
            t.start();
            t.join(10_000);
        }
        for (int i = 0; i < threads; i++) {
            assertEquals(Integer.toString(cpus.get(i % cpus.size())), seen.get(i).get(10, TimeUnit.SECONDS),
                    "thread " + i + "'s CPUs");
        }
    }

    @Test
    void anEventLoopGroupOnItSpreadsItsLoopsOverTheCpus() throws Exception {
        PinnedThreadFactory factory = new PinnedThreadFactory("pinned-loop");
        int loops = Math.min(2, factory.cpus().size());
        EventLoopGroup group = new JfabricEventLoopGroup(loops, factory);
        try {
            Set<String> cpus = new HashSet<>();
            for (EventExecutor loop : group) {
                cpus.add(loop.submit(() -> statusLine("Cpus_allowed_list")).get(10, TimeUnit.SECONDS));
            }
            assertEquals(loops, cpus.size(), "each loop on a CPU of its own: " + cpus);
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void aCpuOutsideTheMaskIsRefusedWithItsNumber() {
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> CpuAffinity.pinCurrentThread(1 << 20));
        assertEquals("CPU 1048576 is outside 0-1023", bad.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CpuAffinity.pinCurrentThread(-1));
    }

    private static List<Integer> cpuList(String text) {
        List<Integer> cpus = new ArrayList<>();
        for (String range : text.split(",")) {
            String[] ends = range.split("-");
            for (int cpu = Integer.parseInt(ends[0]); cpu <= Integer.parseInt(ends[ends.length - 1]); cpu++) {
                cpus.add(cpu);
            }
        }
        return cpus;
    }

    private static String statusLine(String key) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
            if (line.startsWith(key + ":")) {
                return line.substring(key.length() + 1).trim();
            }
        }
        throw new IOException("no " + key + " in /proc/thread-self/status");
    }
}
