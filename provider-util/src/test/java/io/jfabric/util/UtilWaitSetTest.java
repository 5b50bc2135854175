package io.jfabric.util;

import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.WaitAttr;
import io.jfabric.WaitObj;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class UtilWaitSetTest {
    private static CqAttr cqIn(UtilWaitSet ws) {
        CqAttr a = CqAttr.of(CqFormat.CONTEXT, 8);
        a.waitObj = WaitObj.SET;
        a.waitSet = ws;
        return a;
    }

    @Test
    void aWaitSetWakesOnEachMemberAndTrywaitTellsPendingEvents() throws Exception {
        UtilWaitSet ws = new UtilWaitSet(WaitAttr.defaults());
        UtilCompletionQueue cq = new UtilCompletionQueue(cqIn(ws), ProgressHook.NONE, true, true);
        EqAttr ea = new EqAttr();
        ea.waitObj = WaitObj.SET;
        ea.waitSet = ws;
        UtilEventQueue eq = new UtilEventQueue(ea, ProgressHook.NONE);
        CounterAttr ca = new CounterAttr();
        ca.waitObj = WaitObj.SET;
        ca.waitSet = ws;
        UtilCounter cntr = new UtilCounter(ca, ProgressHook.NONE);
        assertEquals(3, ws.size());

        assertEquals(0, UtilWaitSet.trywait(ws), "nothing pending: safe to block");
        assertEquals(-Errno.ETIMEDOUT, ws.await(50), "fi_wait with nothing pending times out");

        CompletableFuture<Integer> w = CompletableFuture.supplyAsync(() -> ws.await(10_000));
        Thread.sleep(50);
        cq.write("c", 0, 0, 0, 0, 0);
        assertEquals(0, w.get(5, TimeUnit.SECONDS), "a CQ write wakes the wait set");
        assertEquals(-Errno.EAGAIN, UtilWaitSet.trywait(ws), "a CQ entry is pending");
        assertEquals(-Errno.EAGAIN, UtilWaitSet.trywait(cq));
        assertEquals(1, cq.read(CqEntry.array(1), 1));
        assertEquals(0, UtilWaitSet.trywait(ws, cq));

        w = CompletableFuture.supplyAsync(() -> ws.await(10_000));
        Thread.sleep(50);
        eq.postConnected("ep", "ctx", null);
        assertEquals(0, w.get(5, TimeUnit.SECONDS), "an EQ event wakes the wait set");
        assertEquals(-Errno.EAGAIN, UtilWaitSet.trywait(ws));
        assertTrue(eq.read(new EqEntry(), 0) >= 0);
        assertEquals(0, UtilWaitSet.trywait(ws));

        w = CompletableFuture.supplyAsync(() -> ws.await(10_000));
        Thread.sleep(50);
        cntr.increment();
        assertEquals(0, w.get(5, TimeUnit.SECONDS), "a counter change wakes the wait set");
        assertEquals(-Errno.EAGAIN, UtilWaitSet.trywait(cntr), "a counter change is pending until read");
        assertEquals(1, cntr.read());
        assertEquals(0, UtilWaitSet.trywait(ws));

        w = CompletableFuture.supplyAsync(() -> ws.await(-1));
        Thread.sleep(50);
        ws.wakeup();
        assertEquals(0, w.get(5, TimeUnit.SECONDS), "wakeup() ends a wait");
        ws.wakeup();
        assertEquals(0, ws.await(-1), "a wakeup with nobody waiting ends the next wait at once");

        assertEquals(Errno.EBUSY, assertThrows(FabricException.class, ws::close).errno(),
                "a wait set with members does not close");
        cq.close();
        eq.close();
        cntr.close();
        ws.close();
        assertEquals(-Errno.EBADF, ws.await(0));
    }

    @Test
    void aWakeupWithNobodyWaitingSkipsTheProvidersWakeAndStillEndsTheNextWait() throws Exception {
        SleepingHook hook = new SleepingHook(true);
        UtilWaitSet ws = new UtilWaitSet(WaitAttr.defaults());
        UtilCompletionQueue cq = new UtilCompletionQueue(cqIn(ws), hook, true, true);
        ws.wakeup();
        assertEquals(0, hook.wakeups.get(), "nobody waits: the provider is not woken");
        assertEquals(0, ws.await(10_000), "the pending wakeup ends the next wait at once");

        CompletableFuture<Integer> w = CompletableFuture.supplyAsync(() -> ws.await(10_000));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (hook.sleeps.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertTrue(hook.sleeps.get() > 0, "the waiter sleeps in the provider's hook");
        ws.wakeup();
        assertEquals(0, w.get(5, TimeUnit.SECONDS), "a wakeup ends a wait asleep in the provider");
        assertTrue(hook.wakeups.get() > 0, "by waking the provider's sleep");
        cq.close();
        ws.close();
    }

    @Test
    void aQueueWithoutAWaitObjectIsRefusedByTrywait() {
        CqAttr a = CqAttr.of(CqFormat.CONTEXT, 8);
        a.waitObj = WaitObj.NONE;
        UtilCompletionQueue cq = new UtilCompletionQueue(a, ProgressHook.NONE, false, false);
        assertEquals(-Errno.EINVAL, UtilWaitSet.trywait(cq));
        WaitAttr wa = new WaitAttr();
        wa.waitObj = WaitObj.POLLFD;
        assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> new UtilWaitSet(wa)).errno());
    }

    @Test
    void aPollSetReportsTheContextsWithEvents() {
        UtilPollSet ps = new UtilPollSet();
        AtomicInteger progressed = new AtomicInteger();
        ProgressHook hook = progressed::incrementAndGet;
        UtilCompletionQueue a = new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 8), hook, false, false);
        UtilCompletionQueue b = new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 8), hook, false, false);
        UtilCounter c = new UtilCounter(CounterAttr.defaults(), ProgressHook.NONE);
        ps.add(a, "A");
        ps.add(b, null);
        ps.add(c, "C");
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> ps.add(a, "again")).errno());
        Object[] out = new Object[4];
        assertEquals(0, ps.poll(out, 4));
        assertEquals(1, progressed.get(), "one progress call per distinct hook per poll");
        b.write("x", 0, 0, 0, 0, 0);
        c.add(1);
        assertEquals(2, ps.poll(out, 4));
        assertArrayEquals(new Object[] {b, "C"}, new Object[] {out[0], out[1]});
        assertEquals(1, ps.poll(out, 4), "a counter reports a change once; a CQ while it is not empty");
        assertEquals(b, out[0]);
        assertEquals(-Errno.EINVAL, ps.poll(out, 5));
        ps.remove(b);
        assertEquals(0, ps.poll(out, 4));
        assertEquals(Errno.EBUSY, assertThrows(FabricException.class, ps::close).errno());
        ps.remove(a);
        ps.remove(c);
        ps.close();
    }

    @Test
    void tenThousandVirtualReadersShareOneLeaderAndAllComplete() throws Exception {
        SleepingHook hook = new SleepingHook(true);
        int n = 10_000;
        UtilCompletionQueue cq = new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, n), hook, true, true);
        AtomicInteger done = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            ts[i] = Thread.ofVirtual().start(() -> {
                CqEntry[] e = CqEntry.array(1);
                if (cq.sread(e, 1, 20_000) == 1) {
                    done.incrementAndGet();
                } else {
                    failed.incrementAndGet();
                }
            });
        }
        Thread.sleep(200);
        for (int i = 0; i < n; i++) {
            assertEquals(0, cq.write(i, 0, 0, 0, 0, 0));
        }
        for (Thread t : ts) {
            t.join(20_000);
        }
        assertEquals(n, done.get(), "every virtual reader got an entry (" + failed.get() + " failed)");
        assertTrue(hook.sleeps.get() > 0, "the leader slept in the hook");
    }
}
