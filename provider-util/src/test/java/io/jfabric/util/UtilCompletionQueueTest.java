package io.jfabric.util;

import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import io.jfabric.WaitObj;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class UtilCompletionQueueTest {

    private static UtilCompletionQueue cq(CqFormat f, int size) {
        return new UtilCompletionQueue(CqAttr.of(f, size), ProgressHook.NONE, false, false);
    }

    @Test
    void emptyReadIsEagainAndCountZeroOnlyProgresses() {
        AtomicInteger calls = new AtomicInteger();
        var q = new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 8), () -> {
            calls.incrementAndGet();
            return 0;
        }, false, false);
        CqEntry[] e = CqEntry.array(4);
        assertEquals(-Errno.EAGAIN, q.read(e, 4));
        assertEquals(0, q.read(e, 0));
        assertEquals(-Errno.EAGAIN, q.read(e[0]));
        assertEquals(3, calls.get(), "every read, including count 0, drives progress");
        assertEquals(-Errno.EINVAL, q.read(e, 5), "count beyond the array is refused");
    }

    @Test
    void readsAreOrderedAndHonourTheFormat() {
        for (CqFormat f : CqFormat.values()) {
            var q = cq(f, 8);
            String ctx1 = "a", ctx2 = "b";
            assertEquals(0, q.write(ctx1, OpFlags.RECV | OpFlags.MSG, 10, 0x1000, 7, 0x55));
            assertEquals(0, q.write(ctx2, OpFlags.SEND | OpFlags.TAGGED, 20, 0x2000, 8, 0x66));
            CqEntry[] e = CqEntry.array(4);
            for (CqEntry x : e) {
                x.set("stale", 99, 99, 99, 99, 99);
            }
            assertEquals(2, q.read(e, 4), f.toString());
            assertSame(ctx1, e[0].context);
            assertSame(ctx2, e[1].context);
            boolean msg = f.ordinal() >= CqFormat.MSG.ordinal();
            boolean data = f.ordinal() >= CqFormat.DATA.ordinal();
            boolean tagged = f == CqFormat.TAGGED;
            assertEquals(msg ? OpFlags.RECV | OpFlags.MSG : 0, e[0].flags, f.toString());
            assertEquals(msg ? 10 : 0, e[0].len, f.toString());
            assertEquals(data ? 0x1000 : 0, e[0].buf, f.toString());
            assertEquals(data ? 7 : 0, e[0].data, f.toString());
            assertEquals(tagged ? 0x55 : 0, e[0].tag, f.toString());
            assertEquals(tagged ? 0x66 : 0, e[1].tag, f.toString());
            assertEquals("stale", e[2].context, "entries past the count are untouched");
        }
    }

    @Test
    void readStopsAtAnErrorAndEntriesBehindItWait() {
        var q = cq(CqFormat.TAGGED, 16);
        q.write("s1", OpFlags.SEND, 1, 0, 0, 0);
        q.write("s2", OpFlags.SEND, 2, 0, 0, 0);
        byte[] detail = {1, 2, 3};
        q.writeError("e1", OpFlags.RECV, 100, 0, 0, 0x9, 50, Errno.ETRUNC, 77, detail);
        q.write("s3", OpFlags.SEND, 3, 0, 0, 0);

        CqEntry[] e = CqEntry.array(8);
        assertEquals(2, q.read(e, 8), "successes ahead of the error are returned first");
        assertEquals("s1", e[0].context);
        assertEquals("s2", e[1].context);
        assertEquals(-Errno.EAVAIL, q.read(e, 8), "the error at the head blocks further reads");
        assertEquals(-Errno.EAVAIL, q.read(e[0]));

        CqErrEntry err = new CqErrEntry();
        assertEquals(1, q.readError(err, 0));
        assertEquals("e1", err.context);
        assertEquals(Errno.ETRUNC, err.err);
        assertEquals(77, err.provErrno);
        assertEquals(50, err.olen);
        assertEquals(100, err.len);
        assertEquals(0x9, err.tag);
        assertSame(detail, err.errData);
        assertEquals(-Errno.EAGAIN, q.readError(err, 0), "no second error");

        assertEquals(1, q.read(e, 8));
        assertEquals("s3", e[0].context);
        assertEquals(-Errno.EAGAIN, q.read(e, 8));
    }

    @Test
    void readErrorWithSuccessAtHeadIsEagain() {
        var q = cq(CqFormat.CONTEXT, 4);
        q.write("s", 0, 0, 0, 0, 0);
        q.writeError("e", OpFlags.RECV, Errno.ECANCELED);
        assertEquals(-Errno.EAGAIN, q.readError(new CqErrEntry(), 0));
        CqEntry one = new CqEntry();
        assertEquals(1, q.read(one));
        CqErrEntry err = new CqErrEntry();
        assertEquals(1, q.readError(err, 0));
        assertEquals(Errno.ECANCELED, err.err);
    }

    @Test
    void errorNumberIsNormalisedPositive() {
        var q = cq(CqFormat.CONTEXT, 4);
        q.writeError("neg", 0, -Errno.ECONNRESET);
        q.writeError("zero", 0, 0);
        CqErrEntry err = new CqErrEntry();
        assertEquals(1, q.readError(err, 0));
        assertEquals(Errno.ECONNRESET, err.err);
        assertEquals(1, q.readError(err, 0));
        assertEquals(Errno.EOTHER, err.err, "an error entry is never mistaken for a success");
    }

    @Test
    void sourceErrorCarriesTheRawAddress() {
        var q = cq(CqFormat.TAGGED, 4);
        byte[] raw = {2, 0, 1, 2, 127, 0, 0, 9};
        assertEquals(0, q.writeSourceError("rx", OpFlags.RECV | OpFlags.TAGGED, 5, 0, 0, 0x7, raw));
        assertEquals(-Errno.EAVAIL, q.readFrom(CqEntry.array(1), 1));
        CqErrEntry err = new CqErrEntry();
        assertEquals(1, q.readError(err, 0));
        assertEquals(Errno.EADDRNOTAVAIL, err.err);
        assertSame(raw, err.errData);
        assertEquals(5, err.len);
        assertEquals(0x7, err.tag);
    }

    @Test
    void readFromFillsSourceAddressAndReadDoesNot() {
        var q = cq(CqFormat.MSG, 4);
        q.writeFrom("x", OpFlags.RECV, 5, 0, 0, 0, 42);
        q.writeFrom("y", OpFlags.RECV, 5, 0, 0, 0, 43);
        CqEntry[] e = CqEntry.array(1);
        assertEquals(1, q.readFrom(e, 1));
        assertEquals(42, e[0].srcAddr);
        assertEquals(1, q.read(e, 1));
        assertEquals(Fabrics.ADDR_NOTAVAIL, e[0].srcAddr);
    }

    @Test
    void overrunIsReportedNeverSilentAndNeverGrows() {
        var q = cq(CqFormat.CONTEXT, 3);
        assertEquals(3, q.capacity());
        for (int i = 0; i < 3; i++) {
            assertEquals(0, q.write("c" + i, 0, 0, 0, 0, 0));
        }
        assertEquals(-Errno.EOVERRUN, q.write("lost1", 0, 0, 0, 0, 0));
        assertTrue(q.isOverrun());
        assertEquals(-Errno.EOVERRUN, q.write("lost2", 0, 0, 0, 0, 0), "fatal: no completions after the gap");
        CqEntry[] e = CqEntry.array(8);
        assertEquals(3, q.read(e, 8), "valid completions stay readable");
        assertEquals("c2", e[2].context);
        assertEquals(-Errno.EAVAIL, q.read(e, 8));
        CqErrEntry err = new CqErrEntry();
        assertEquals(1, q.readError(err, 0));
        assertEquals(Errno.EOVERRUN, err.err);
        assertEquals(2, err.data, "data counts the lost completions");
        assertEquals(-Errno.EAVAIL, q.read(e, 8), "the overrun state is permanent");
        assertEquals(2, q.lostCompletions());
    }

    @Test
    void reservationsGuaranteeRoomAndUnreservedWritesCannotStealIt() {
        var q = cq(CqFormat.CONTEXT, 2);
        assertTrue(q.tryReserve());
        assertEquals(1, q.freeSlots());
        assertEquals(0, q.write("unsolicited", 0, 0, 0, 0, 0));
        assertEquals(0, q.freeSlots());
        assertFalse(q.tryReserve(), "full: the provider answers the post with -EAGAIN");
        assertEquals(0, q.writeFrom(true, "reserved", 0, 0, 0, 0, 0, Fabrics.ADDR_NOTAVAIL));
        assertEquals(0, q.reservations());
        CqEntry[] e = CqEntry.array(2);
        assertEquals(2, q.read(e, 2));
        assertTrue(q.tryReserve());
        q.cancelReservation();
        assertEquals(2, q.freeSlots());

        var r = cq(CqFormat.CONTEXT, 1);
        assertTrue(r.tryReserve());
        assertEquals(-Errno.EOVERRUN, r.write("steal", 0, 0, 0, 0, 0), "an unreserved write may not take a promised slot");
    }

    @Test
    void sreadTimesOutWithEagainAfterSleeping() {
        var q = cq(CqFormat.CONTEXT, 4);
        CqEntry[] e = CqEntry.array(1);
        long t0 = System.nanoTime();
        assertEquals(-Errno.EAGAIN, q.sread(e, 1, 100));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms >= 95 && ms < 2000, "waited " + ms + " ms");
    }

    @Test
    void sreadWakesPromptlyOnWriteFromAnotherThread() throws Exception {
        var q = cq(CqFormat.CONTEXT, 4);
        CqEntry[] e = CqEntry.array(1);
        Thread w = Thread.ofPlatform().start(() -> {
            sleep(50);
            q.write("late", 0, 0, 0, 0, 0);
        });
        long t0 = System.nanoTime();
        assertEquals(1, q.sread(e, 1, 10_000));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertEquals("late", e[0].context);
        assertTrue(ms < 2000, "woke after " + ms + " ms");
        w.join();
    }

    @Test
    void signalEndsSreadWithEagain() throws Exception {
        var q = cq(CqFormat.CONTEXT, 4);
        CountDownLatch started = new CountDownLatch(1);
        AtomicInteger rc = new AtomicInteger(1);
        Thread r = Thread.ofPlatform().start(() -> {
            started.countDown();
            rc.set(q.sread(CqEntry.array(1), 1, -1));
        });
        started.await();
        sleep(50);
        q.signal();
        r.join(5000);
        assertFalse(r.isAlive(), "sread must return after signal()");
        assertEquals(-Errno.EAGAIN, rc.get());
    }

    @Test
    void sreadDrivesManualProgressWhileWaiting() {
        AtomicInteger calls = new AtomicInteger();
        AtomicReference<UtilCompletionQueue> ref = new AtomicReference<>();
        var q = new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 4), () -> {
            if (calls.incrementAndGet() == 5) {
                ref.get().write("progressed", 0, 0, 0, 0, 0);
                return 1;
            }
            return 0;
        }, false, false, TimeUnit.MILLISECONDS.toNanos(1));
        ref.set(q);
        CqEntry[] e = CqEntry.array(1);
        assertEquals(1, q.sread(e, 1, 5000));
        assertEquals("progressed", e[0].context);
        assertEquals(5, calls.get());
    }

    @Test
    void sreadUsesABlockingHookAndWakeupEndsIt() throws Exception {
        AtomicInteger blocks = new AtomicInteger();
        Object monitor = new Object();
        boolean[] woken = {false};
        ProgressHook hook = new ProgressHook() {
            @Override
            public int progress() {
                return 0;
            }

            @Override
            public boolean canBlock() {
                return true;
            }

            @Override
            public void block(long nanos) {
                blocks.incrementAndGet();
                synchronized (monitor) {
                    long end = System.nanoTime() + nanos;
                    while (!woken[0] && System.nanoTime() < end) {
                        try {
                            monitor.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                    woken[0] = false;
                }
            }

            @Override
            public void wakeup() {
                synchronized (monitor) {
                    woken[0] = true;
                    monitor.notifyAll();
                }
            }
        };
        var q = new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 4), hook, true, false);
        Thread w = Thread.ofPlatform().start(() -> {
            sleep(50);
            q.write("x", 0, 0, 0, 0, 0);
        });
        long t0 = System.nanoTime();
        assertEquals(1, q.sread(CqEntry.array(1), 1, 10_000));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) < 2000);
        assertTrue(blocks.get() >= 1, "sread slept inside the provider's hook");
        w.join();
    }

    @Test
    void sreadOnWaitNoneIsEnosys() {
        CqAttr a = CqAttr.of(CqFormat.CONTEXT, 4);
        a.waitObj = WaitObj.NONE;
        var q = new UtilCompletionQueue(a, ProgressHook.NONE, false, false);
        assertEquals(-Errno.ENOSYS, q.sread(CqEntry.array(1), 1, 10));
    }

    @Test
    void badAttributesAreRejectedClearly() {
        var ex = assertThrows(FabricException.class,
                () -> new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, -1), null, false, false));
        assertEquals(Errno.EINVAL, ex.errno());
        CqAttr a = CqAttr.of(CqFormat.CONTEXT, 4);
        a.waitObj = WaitObj.SET;
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> new UtilCompletionQueue(a, null, false, false)).errno(), "FI_WAIT_SET without a wait set");
        a.waitObj = WaitObj.POLLFD;
        assertEquals(Errno.ENOSYS, assertThrows(FabricException.class,
                () -> new UtilCompletionQueue(a, null, false, false)).errno(), "FI_WAIT_POLLFD");
        assertEquals(UtilCompletionQueue.DEFAULT_SIZE, cq(CqFormat.UNSPEC, 0).capacity());
        assertEquals(CqFormat.CONTEXT, cq(CqFormat.UNSPEC, 0).format());
    }

    @Test
    void closeWithBoundUsersIsEbusy() {
        var q = cq(CqFormat.CONTEXT, 4);
        q.acquire();
        assertEquals(Errno.EBUSY, assertThrows(FabricException.class, q::close).errno());
        q.release();
        q.close();
        q.close();
        assertTrue(q.isClosed());
    }

    @Test
    void steadyStateWriteAndReadDoNotAllocate() {
        var q = cq(CqFormat.TAGGED, 64);
        CqEntry[] e = CqEntry.array(16);
        CqErrEntry err = new CqErrEntry();
        Object ctx = new Object();
        Runnable cycle = () -> {
            for (int i = 0; i < 10_000; i++) {
                q.writeFrom(ctx, OpFlags.RECV, i, 0, i, i, 3);
                q.writeError(ctx, OpFlags.RECV, Errno.ECANCELED);
                q.read(e, 16);
                q.readError(err, 0);
            }
        };
        cycle.run();
        long bytes = Allocations.bytesDuring(cycle);
        assertTrue(bytes < 1024, "allocated " + bytes + " bytes in 10k write/read cycles");
    }

    @Test
    void oneWriterThreadOneReaderThreadLoseNothingAndKeepOrder() throws Exception {
        var q = cq(CqFormat.DATA, 128);
        final int n = 100_000;
        Thread writer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < n; i++) {
                while (!q.tryReserve()) {
                    Thread.onSpinWait();
                }
                assertEquals(0, q.writeFrom(true, null, 0, 0, 0, i, 0, 0));
            }
        });
        CqEntry[] e = CqEntry.array(32);
        long expect = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (expect < n && System.nanoTime() < deadline) {
            int rc = q.sread(e, 32, 100);
            if (rc > 0) {
                for (int i = 0; i < rc; i++) {
                    assertEquals(expect++, e[i].data);
                }
            } else {
                assertEquals(-Errno.EAGAIN, rc);
            }
        }
        writer.join();
        assertEquals(n, expect);
        assertFalse(q.isOverrun());
    }

    @Test
    void manyWritersManyReadersWithLocks() throws Exception {
        var q = new UtilCompletionQueue(CqAttr.of(CqFormat.DATA, 64), ProgressHook.NONE, true, true);
        final int writers = 4, per = 10_000, readers = 2;
        Thread[] ws = new Thread[writers];
        for (int w = 0; w < writers; w++) {
            final int id = w;
            ws[w] = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < per; i++) {
                    while (!q.tryReserve()) {
                        Thread.onSpinWait();
                    }
                    q.writeFrom(true, null, 0, 0, 0, ((long) id << 32) | i, 0, 0);
                }
            });
        }
        AtomicInteger total = new AtomicInteger();
        long[][] lastSeen = new long[readers][writers];
        Thread[] rs = new Thread[readers];
        for (int r = 0; r < readers; r++) {
            final int rid = r;
            java.util.Arrays.fill(lastSeen[r], -1);
            rs[r] = Thread.ofPlatform().start(() -> {
                CqEntry[] e = CqEntry.array(8);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (total.get() < writers * per && System.nanoTime() < deadline) {
                    int rc = q.sread(e, 8, 20);
                    for (int i = 0; i < rc; i++) {
                        int w = (int) (e[i].data >>> 32);
                        long seq = e[i].data & 0xffffffffL;
                        // Each reader sees each writer's completions in increasing order.
                        if (seq <= lastSeen[rid][w]) {
                            throw new AssertionError("out of order: writer " + w + " seq " + seq);
                        }
                        lastSeen[rid][w] = seq;
                    }
                    if (rc > 0) {
                        total.addAndGet(rc);
                    }
                }
            });
        }
        for (Thread t : ws) {
            t.join();
        }
        for (Thread t : rs) {
            t.join();
        }
        assertEquals(writers * per, total.get());
        assertEquals(0, q.size());
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
