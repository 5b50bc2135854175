package io.jfabric.util;

import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Progress;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class ProgressEngineTest {

    @Test
    void manualEngineRunsTasksOnlyFromReads() {
        ProgressEngine engine = ProgressEngine.manual("t-manual");
        var cq = new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 8), engine.hook(), false, false);
        AtomicInteger runs = new AtomicInteger();
        engine.add(() -> {
            if (runs.incrementAndGet() == 2) {
                cq.write("done", 0, 0, 0, 0, 0);
                return 1;
            }
            return 0;
        });
        engine.start(); // no thread in manual mode
        assertFalse(engine.isRunning());
        UtilCompletionQueueTest.sleep(20);
        assertEquals(0, runs.get(), "nothing runs without a read");
        CqEntry[] e = CqEntry.array(1);
        assertEquals(-Errno.EAGAIN, cq.read(e, 1));
        assertEquals(1, cq.read(e, 1));
        assertEquals("done", e[0].context);
        engine.close();
    }

    @Test
    void autoEngineProgressesOnItsOwnThreadAndStopsCleanly() throws Exception {
        ProgressEngine engine = new ProgressEngine("t-auto", Progress.AUTO,
                ProgressEngine.idleStrategy("sleep:200", null), null, false);
        assertSame(ProgressHook.NONE, engine.hook());
        var cq = new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 8), engine.hook(), false, false);
        AtomicInteger runs = new AtomicInteger();
        Thread[] seen = new Thread[1];
        engine.add(() -> {
            seen[0] = Thread.currentThread();
            if (runs.incrementAndGet() == 10) {
                cq.write("auto", 0, 0, 0, 0, 0);
                return 1;
            }
            return 0;
        });
        engine.start();
        assertTrue(engine.isRunning());
        CqEntry[] e = CqEntry.array(1);
        assertEquals(1, cq.sread(e, 1, 10_000));
        assertEquals("auto", e[0].context);
        assertNotSame(Thread.currentThread(), seen[0]);
        assertEquals("t-auto", seen[0].getName());
        engine.stop();
        assertFalse(engine.isRunning());
        assertFalse(seen[0].isAlive(), "stop() joins the thread");
        int after = runs.get();
        UtilCompletionQueueTest.sleep(30);
        assertEquals(after, runs.get(), "no progress after stop");
        engine.start();
        assertTrue(engine.isRunning(), "restartable");
        engine.close();
        assertFalse(engine.isRunning());
        assertEquals(Errno.EBADF, assertThrows(FabricException.class, engine::start).errno());
    }

    @Test
    void aFailingTaskIsLoggedAndDoesNotStopOthers() {
        ProgressEngine engine = ProgressEngine.manual("t-fail");
        AtomicInteger good = new AtomicInteger();
        engine.add(() -> {
            throw new IllegalStateException("provider bug");
        });
        engine.add(good::incrementAndGet);
        engine.runOnce();
        engine.runOnce();
        assertEquals(2, good.get());
        assertEquals(2, engine.errorCount());
        assertInstanceOf(IllegalStateException.class, engine.lastError());
    }

    @Test
    void serializedManualEngineLetsOneThreadProgressAtATime() throws Exception {
        ProgressEngine engine = new ProgressEngine("t-ser", Progress.MANUAL, null, null, true);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        engine.add(() -> {
            int n = inside.incrementAndGet();
            maxInside.accumulateAndGet(n, Math::max);
            Thread.onSpinWait();
            inside.decrementAndGet();
            return 0;
        });
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = Thread.ofPlatform().start(() -> {
                for (int k = 0; k < 20_000; k++) {
                    engine.hook().progress();
                }
            });
        }
        for (Thread t : ts) {
            t.join();
        }
        assertEquals(1, maxInside.get());
    }

    @Test
    void blockerIsUsedForWaitsAndWokenByRemoteWrites() throws Exception {
        Semaphore wake = new Semaphore(0);
        AtomicInteger blocks = new AtomicInteger();
        ProgressEngine.Blocker blocker = new ProgressEngine.Blocker() {
            @Override
            public void block(long nanos) {
                blocks.incrementAndGet();
                try {
                    wake.tryAcquire(nanos, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void wakeup() {
                wake.release();
            }
        };
        ProgressEngine engine = new ProgressEngine("t-block", Progress.MANUAL, null, blocker, false);
        var cq = new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 8), engine.hook(), true, false);
        Thread t = Thread.ofPlatform().start(() -> {
            UtilCompletionQueueTest.sleep(50);
            cq.write("x", 0, 0, 0, 0, 0);
        });
        long t0 = System.nanoTime();
        assertEquals(1, cq.sread(CqEntry.array(1), 1, 10_000));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) < 3000);
        assertTrue(blocks.get() >= 1);
        t.join();
    }

    @Test
    void idleStrategiesByName() {
        assertInstanceOf(BusySpinIdleStrategy.class, ProgressEngine.idleStrategy("busy", null));
        assertInstanceOf(YieldingIdleStrategy.class, ProgressEngine.idleStrategy("yield", null));
        assertInstanceOf(BackoffIdleStrategy.class, ProgressEngine.idleStrategy(null, null));
        assertInstanceOf(SleepingIdleStrategy.class, ProgressEngine.idleStrategy("sleep:50", null));
        assertInstanceOf(SleepingIdleStrategy.class, ProgressEngine.idleStrategy("block", null), "no blocker: sleep");
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> ProgressEngine.idleStrategy("warp", null)).errno());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> ProgressEngine.idleStrategy("sleep:-3", null)).errno());
        ProviderParams p = new ProviderParams("utiltest2");
        ProgressEngine.Params pp = new ProgressEngine.Params(p);
        assertEquals("progress_idle", p.parameters().get(0).name());
        System.setProperty("jfabric.utiltest2.progress_idle", "yield");
        try (ProgressEngine e = pp.engine("t-param", Progress.AUTO, null, false)) {
            e.start();
            assertTrue(e.isRunning());
        } finally {
            System.clearProperty("jfabric.utiltest2.progress_idle");
        }
    }
}
