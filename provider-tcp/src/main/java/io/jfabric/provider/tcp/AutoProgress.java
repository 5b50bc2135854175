package io.jfabric.provider.tcp;

import java.util.concurrent.TimeUnit;

/**
 * The FI_PROGRESS_AUTO thread of a fabric: drives every endpoint and passive endpoint, and sleeps on the
 * fabric's selector when nothing moved. A daemon thread, stopped when the fabric closes.
 */
final class AutoProgress implements Runnable {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger(TcpParams.PROV);
    private final TcpFabric fabric;
    private final long idleNanos;
    private final Thread thread;
    private volatile boolean running = true;

    AutoProgress(TcpFabric fabric) {
        this.fabric = fabric;
        this.idleNanos = TimeUnit.MICROSECONDS.toNanos(Math.max(50, TcpParams.PROGRESS_IDLE_US.get()));
        this.thread = Thread.ofPlatform().daemon().name("jfabric-tcp-progress").unstarted(this);
    }

    void start() {
        thread.start();
    }

    void stop() {
        running = false;
        fabric.wakeup();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        int idleRounds = 0;
        while (running) {
            int work;
            try {
                work = fabric.everything.progressAll();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "progress thread caught an unexpected error", e);
                work = 0;
            }
            if (work > 0) {
                idleRounds = 0;
            } else if (++idleRounds > 20) {
                fabric.waitForIo(idleNanos);
            } else {
                Thread.onSpinWait();
            }
        }
    }
}
