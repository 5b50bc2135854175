package io.jfabric.conformance;

import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fabtests cq_test and eq_test beyond {@link QueueTest}: CQs of many sizes and many CQs at once, a blocking CQ
 * read woken by a real completion, an EQ read woken by a write from another thread, EQ order, peeking an error.
 */
@Timeout(60)
class QueueBreadthTest {
    @RegisterExtension
    final StateDump dump = new StateDump();

    private Fabric fabric;
    private Domain domain;

    private void open(FabricCase c) {
        OpenDomain d = OpenDomain.of(c, dump);
        fabric = d.fabric();
        domain = d.domain();
    }

    @ForEachFabric
    void cqsOfEverySizeOpenAndAreEmpty(FabricCase c) {
        open(c);
        long max = c.info().domainAttr.cqCnt; // not a size limit; only used to name the case in messages
        for (long size : new long[] {1, 2, 3, 64, 1000, 4096, 65536}) {
            CompletionQueue cq = dump.track(domain.openCq(CqAttr.of(CqFormat.TAGGED, size)));
            long got = cq.attr().size;
            assertTrue(got == 0 || got >= size, "a CQ opened with size " + size + " reports size " + got
                    + " (fi_cq(3): at least the requested size); cq_cnt " + max);
            assertEquals(-Errno.EAGAIN, cq.read(new CqEntry()), "fi_cq_read of an empty CQ of size " + size);
            dump.close(cq);
        }
    }

    @ForEachFabric
    void manyCqsOpenAtOnceAndCloseCleanly(FabricCase c) {
        open(c);
        long limit = FabricCase.unsigned(c.info().domainAttr.cqCnt);
        int n = (int) Math.min(64, limit == 0 ? 64 : limit);
        List<CompletionQueue> cqs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            cqs.add(dump.track(domain.openCq(CqAttr.of(i % 2 == 0 ? CqFormat.CONTEXT : CqFormat.DATA, 16 + i))));
        }
        for (CompletionQueue cq : cqs) {
            assertEquals(-Errno.EAGAIN, cq.read(new CqEntry()), "each of " + n + " CQs reads empty");
        }
        for (int i = cqs.size() - 1; i >= 0; i--) {
            dump.close(cqs.get(i));
        }
    }

    @ForEachFabric
    void blockedCqSreadIsWokenByACompletion(FabricCase c) throws Exception {
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment rx = Mem.alloc(arena, 64);
            MemorySegment tx = Mem.alloc(arena, 64);
            Mem.fill(tx, 44);
            p.poller.post("fi_recv", () -> p.b.ep.recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, "rx"));
            CqEntry[] got = CqEntry.array(1);
            // the reader blocks in fi_cq_sread, which must make progress for b on its own
            CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> p.b.rxCq.sread(got, 1, 20_000));
            Thread.sleep(100);
            long t0 = System.nanoTime();
            assertEquals(0, SendRecvTest.postSend(p, tx, p.a.desc(tx), "tx"), "fi_send");
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (!reader.isDone() && System.nanoTime() < deadline) {
                p.a.txCq.read(Poller.NONE, 0); // progress for a only; b is the blocked reader's business
                Thread.onSpinWait();
            }
            int rc = reader.get(1, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(1, rc, "fi_cq_sread woken by the completion returned " + Errno.name(rc));
            assertEquals("rx", got[0].context);
            assertEquals(-1, Mem.mismatch(rx, 44));
            assertTrue(ms < 10_000, "fi_cq_sread took " + ms + " ms to see the completion");
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), 10_000, "send");
        }
    }

    private EventQueue writableEq() {
        EqAttr attr = EqAttr.defaults();
        attr.flags = Caps.WRITE;
        return dump.track(fabric.openEq(attr));
    }

    @ForEachFabric
    void eqSreadIsWokenByAWriteFromAnotherThread(FabricCase c) throws Exception {
        open(c);
        EventQueue eq = writableEq();
        EqEntry got = new EqEntry();
        CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> eq.sread(got, 20_000, 0));
        Thread.sleep(200);
        long t0 = System.nanoTime();
        eq.write(new EqEntry().set(EqEvent.NOTIFY, eq, "woken", 9, null, null), 0);
        int rc = reader.get(10, TimeUnit.SECONDS);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(EqEvent.NOTIFY, rc, "fi_eq_sread returns the written event");
        assertEquals("woken", got.context);
        assertEquals(9, got.data);
        assertTrue(ms < 5_000, "fi_eq_write took " + ms + " ms to wake fi_eq_sread");
    }

    @ForEachFabric
    void eqEventsReadInTheOrderWritten(FabricCase c) {
        open(c);
        EventQueue eq = writableEq();
        for (int i = 0; i < 50; i++) {
            eq.write(new EqEntry().set(EqEvent.NOTIFY, eq, "e" + i, i, null, null), 0);
        }
        EqEntry e = new EqEntry();
        for (int i = 0; i < 50; i++) {
            assertEquals(EqEvent.NOTIFY, eq.read(e, 0), "event " + i);
            assertEquals(i, e.data, "events come out in the order written");
            assertEquals("e" + i, e.context);
        }
        assertEquals(-Errno.EAGAIN, eq.read(e, 0));
    }

    @ForEachFabric
    void peekingAnErrorLeavesItForReaderr(FabricCase c) {
        open(c);
        EventQueue eq = writableEq();
        try {
            eq.writeError(new EqErrEntry().set(eq, "bad", 3, Errno.ETIMEDOUT, 0, null), 0);
        } catch (io.jfabric.FabricException e) {
            Gate.require(e.errno() != Errno.ENOSYS && e.errno() != Errno.EOPNOTSUPP, c,
                    "cannot insert error entries with fi_eq_write: " + e.getMessage());
            throw e;
        }
        eq.write(new EqEntry().set(EqEvent.NOTIFY, eq, "after", 4, null, null), 0);
        EqEntry e = new EqEntry();
        assertEquals(-Errno.EAVAIL, eq.read(e, OpFlags.PEEK), "FI_PEEK at an error gives -FI_EAVAIL");
        assertEquals(-Errno.EAVAIL, eq.read(e, 0), "the peek left the error in place");
        EqErrEntry err = new EqErrEntry();
        assertTrue(eq.readError(err, 0) > 0);
        assertEquals(Errno.ETIMEDOUT, err.err);
        assertSame("bad", err.context);
        assertEquals(EqEvent.NOTIFY, eq.read(e, 0), "the event behind the error follows");
        assertEquals(4, e.data);
        assertEquals(-Errno.EAGAIN, eq.readError(err, 0), "the error was consumed once");
    }

    @ForEachFabric
    void cqReaderrOnAnEmptyCqAndAfterAnErrorIsEagain(FabricCase c) {
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment rx = Mem.alloc(arena, 32);
            p.poller.post("fi_recv", () -> p.b.ep.recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, "doomed"));
            int rc = p.b.ep.cancel("doomed");
            Gate.require(rc != -Errno.ENOSYS, c, "cannot cancel a posted receive (fi_cancel answers -FI_ENOSYS, as"
                    + " libfabric's verbs MSG endpoints do)");
            assertEquals(0, rc);
            CqErrEntry err = p.poller.expectError(p.b.rxCq, 10_000, "cancelled receive");
            assertEquals(Errno.ECANCELED, err.err);
            assertEquals(-Errno.EAGAIN, p.b.rxCq.readError(new CqErrEntry(), 0), "the error entry was consumed");
            assertEquals(-Errno.EAGAIN, p.b.rxCq.read(new CqEntry()), "nothing else is queued");
        }
    }
}
