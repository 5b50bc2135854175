package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Access;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.MemoryRegion;
import io.jfabric.WaitObj;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * sread honours its timeout and fi_cq_signal (native 1.17 shm's own fi_cq_sread never returns), and a
 * blocked sread returns the completion that arrives; fi_cntr_wait keeps fi_cntr(3)'s contract the same way.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BlockingReadTest {

    @Test
    void cqSreadTimesOutIsSignalledAndDelivers() throws Exception {
        try (EndpointPair p = new EndpointPair("libfabric:shm", Caps.MSG); Arena arena = Arena.ofShared()) {
            CqAttr attr = CqAttr.of(CqFormat.CONTEXT, 16);
            attr.waitObj = WaitObj.UNSPEC;
            CompletionQueue cq = p.domain.openCq(attr);
            long t0 = System.nanoTime();
            assertEquals(-Errno.EAGAIN, cq.sread(CqEntry.array(1), 1, 200));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= 195 && ms < 5_000, "sread returned after " + ms + " ms for a 200 ms timeout");

            CompletableFuture<Integer> blocked = CompletableFuture.supplyAsync(() -> cq.sread(CqEntry.array(1), 1, 20_000));
            Thread.sleep(100);
            cq.signal();
            assertEquals(-Errno.EAGAIN, blocked.get(5, TimeUnit.SECONDS), "a signalled sread returns -EAGAIN");
            cq.close();

            // a completion arriving while blocked is returned
            MemorySegment src = arena.allocate(16);
            MemorySegment dst = arena.allocate(16);
            MemoryRegion ms1 = p.domain.registerMemory(src, Access.SEND, 51);
            MemoryRegion ms2 = p.domain.registerMemory(dst, Access.RECV, 52);
            p.post(() -> p.b.recv(dst, ms2, p.addrA, "blocked recv"), "fi_recv");
            p.post(() -> p.a.send(src, ms1, p.addrB, "send"), "fi_send");
            CqEntry[] e = CqEntry.array(1);
            CompletableFuture.runAsync(() -> {
                CqEntry x = new CqEntry();
                for (int i = 0; i < 2000 && p.cqA.read(x) != 1; i++) {
                    Thread.onSpinWait();
                }
            });
            assertEquals(1, p.cqB.sread(e, 1, 10_000));
            assertSame("blocked recv", e[0].context);
            ms1.close();
            ms2.close();
        }
    }

    @Test
    void eqSreadTimesOut() {
        try (EndpointPair p = new EndpointPair("libfabric:shm", Caps.MSG)) {
            EventQueue eq = p.fabric.openEq(EqAttr.defaults());
            long t0 = System.nanoTime();
            assertEquals(-Errno.EAGAIN, eq.sread(new EqEntry(), 200, 0));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= 195 && ms < 5_000, "sread returned after " + ms + " ms");
            eq.close();
        }
    }

    /** libfabric 1.17's own fi_cntr_wait never times out on shm (and segfaults on tcp's counters). */
    @Test
    void cntrWaitTimesOutIsWokenAndSeesErrors() throws Exception {
        try (EndpointPair p = new EndpointPair("libfabric:shm", Caps.MSG)) {
            Counter c = p.domain.openCounter(CounterAttr.defaults());
            c.set(5);
            long t0 = System.nanoTime();
            assertEquals(-Errno.ETIMEDOUT, c.await(6, 200));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= 195 && ms < 5_000, "fi_cntr_wait returned after " + ms + " ms for a 200 ms timeout");

            CompletableFuture<Integer> reached = CompletableFuture.supplyAsync(() -> c.await(7, 20_000));
            Thread.sleep(50);
            c.add(2);
            assertEquals(0, reached.get(5, TimeUnit.SECONDS), "fi_cntr_wait woken by fi_cntr_add");

            CompletableFuture<Integer> failed = CompletableFuture.supplyAsync(() -> c.await(100, 20_000));
            Thread.sleep(50);
            c.addError(1);
            assertEquals(-Errno.EAVAIL, failed.get(5, TimeUnit.SECONDS), "an error count change ends fi_cntr_wait");
            c.close();
        }
    }

    @Test
    void cntrWaitWithoutAWaitObjectIsRefused() {
        try (EndpointPair p = new EndpointPair("libfabric:shm", Caps.MSG)) {
            CounterAttr attr = CounterAttr.defaults();
            attr.waitObj = WaitObj.NONE;
            Counter c = p.domain.openCounter(attr);
            assertEquals(-Errno.ENOSYS, c.await(1, 10_000), "fi_cntr(3): waiting on an FI_WAIT_NONE counter is invalid");
            c.close();
        }
    }

    @Test
    void selectiveCompletionReportsOnlyWhatWasAskedFor() {
        try (EndpointPair p = new EndpointPair("libfabric:shm", Caps.MSG, BindFlags.SELECTIVE_COMPLETION);
             Arena arena = Arena.ofShared()) {
            MemorySegment r1 = arena.allocate(32);
            MemorySegment r2 = arena.allocate(32);
            MemorySegment t1 = arena.allocate(32);
            MemorySegment t2 = arena.allocate(32);
            t1.fill((byte) 1);
            t2.fill((byte) 2);
            p.post(() -> p.b.recv(r1, null, p.addrA, "r1"), "fi_recv");
            p.post(() -> p.b.recv(r2, null, p.addrA, "r2"), "fi_recv");
            p.post(() -> p.a.send(t1, null, p.addrB, "silent"), "fi_send");
            io.jfabric.Msg m = new io.jfabric.Msg(1).set(t2, null, p.addrB, "wanted");
            p.post(() -> p.a.sendmsg(m, io.jfabric.OpFlags.COMPLETION), "fi_sendmsg");
            p.await(1, 2);
            assertSame("r1", p.doneB.get(0).context);
            assertSame("r2", p.doneB.get(1).context);
            assertSame("wanted", p.doneA.get(0).context, p.doneA.toString());
        }
    }
}
