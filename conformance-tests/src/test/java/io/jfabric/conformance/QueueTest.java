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
import io.jfabric.OpFlags;
import io.jfabric.WaitObj;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** fi_cq(3) and fi_eq(3) on their own: empty reads, blocking reads that time out, EQ writes. */
@Timeout(30)
class QueueTest {
    private static final int SREAD_MS = 200;
    /** Generous upper bound for a 200 ms timed wait on a loaded 2-core machine. */
    private static final long SREAD_SLACK_MS = 3_000;

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
    void emptyCqReadsGiveEagainInEveryFormat(FabricCase c) {
        open(c);
        for (CqFormat f : new CqFormat[] {CqFormat.CONTEXT, CqFormat.MSG, CqFormat.DATA, CqFormat.TAGGED}) {
            CompletionQueue cq = dump.track(domain.openCq(CqAttr.of(f, 16)));
            assertEquals(-Errno.EAGAIN, cq.read(new CqEntry()), f + ": fi_cq_read of an empty CQ");
            assertEquals(-Errno.EAGAIN, cq.read(CqEntry.array(4), 4), f + ": fi_cq_read of 4 from an empty CQ");
            assertEquals(-Errno.EAGAIN, cq.readFrom(CqEntry.array(2), 2), f + ": fi_cq_readfrom of an empty CQ");
            assertEquals(-Errno.EAGAIN, cq.readError(new CqErrEntry(), 0), f + ": fi_cq_readerr with no error");
            dump.close(cq);
        }
    }

    @ForEachFabric
    void cqSreadTimesOutAfterItsTimeout(FabricCase c) {
        open(c);
        CqAttr attr = CqAttr.of(CqFormat.CONTEXT, 16);
        attr.waitObj = WaitObj.UNSPEC;
        CompletionQueue cq = dump.track(domain.openCq(attr));
        long t0 = System.nanoTime();
        int rc = cq.sread(CqEntry.array(1), 1, SREAD_MS);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(-Errno.EAGAIN, rc, "fi_cq_sread on an empty CQ");
        assertTrue(ms >= SREAD_MS - 5, "fi_cq_sread returned after " + ms + " ms, before its " + SREAD_MS + " ms timeout");
        assertTrue(ms < SREAD_MS + SREAD_SLACK_MS, "fi_cq_sread took " + ms + " ms for a " + SREAD_MS + " ms timeout");
    }

    @ForEachFabric
    void cqSignalWakesABlockedSread(FabricCase c) throws Exception {
        open(c);
        CqAttr attr = CqAttr.of(CqFormat.CONTEXT, 16);
        attr.waitObj = WaitObj.UNSPEC;
        CompletionQueue cq = dump.track(domain.openCq(attr));
        CompletableFuture<Integer> blocked = CompletableFuture.supplyAsync(() -> cq.sread(CqEntry.array(1), 1, 20_000));
        Thread.sleep(200);
        long t0 = System.nanoTime();
        cq.signal();
        int rc = blocked.get(10, TimeUnit.SECONDS);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(-Errno.EAGAIN, rc, "a signalled fi_cq_sread returns -FI_EAGAIN");
        assertTrue(ms < 5_000, "fi_cq_signal took " + ms + " ms to wake the reader");
    }

    @ForEachFabric
    void emptyEqReadGivesEagainAndSreadTimesOut(FabricCase c) {
        open(c);
        EventQueue eq = dump.track(fabric.openEq(EqAttr.defaults()));
        assertEquals(-Errno.EAGAIN, eq.read(new EqEntry(), 0), "fi_eq_read of an empty EQ");
        assertEquals(-Errno.EAGAIN, eq.readError(new EqErrEntry(), 0), "fi_eq_readerr with no error");
        long t0 = System.nanoTime();
        int rc = eq.sread(new EqEntry(), SREAD_MS, 0);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(-Errno.EAGAIN, rc, "fi_eq_sread on an empty EQ");
        assertTrue(ms >= SREAD_MS - 5, "fi_eq_sread returned after " + ms + " ms, before its timeout");
        assertTrue(ms < SREAD_MS + SREAD_SLACK_MS, "fi_eq_sread took " + ms + " ms for a " + SREAD_MS + " ms timeout");
    }

    @ForEachFabric
    void eqWriteThenPeekThenRead(FabricCase c) {
        open(c);
        EqAttr attr = EqAttr.defaults();
        attr.flags = Caps.WRITE; // FI_WRITE: the application inserts events
        EventQueue eq = dump.track(fabric.openEq(attr));
        Object ctx = new Object();
        eq.write(new EqEntry().set(EqEvent.NOTIFY, eq, ctx, 42, null, null), 0);
        EqEntry e = new EqEntry();
        assertEquals(EqEvent.NOTIFY, eq.read(e, OpFlags.PEEK), "FI_PEEK sees the written event");
        assertEquals(EqEvent.NOTIFY, eq.read(e, 0), "the peeked event is still there");
        assertSame(ctx, e.context);
        assertEquals(42, e.data);
        assertEquals(-Errno.EAGAIN, eq.read(e, 0), "the event was consumed");
    }

    @ForEachFabric
    void eqWrittenErrorIsReadWithReaderr(FabricCase c) {
        open(c);
        EqAttr attr = EqAttr.defaults();
        attr.flags = Caps.WRITE;
        EventQueue eq = dump.track(fabric.openEq(attr));
        try {
            eq.writeError(new EqErrEntry().set(eq, null, 7, Errno.ECONNREFUSED, 0, null), 0);
        } catch (io.jfabric.FabricException e) {
            Gate.require(e.errno() != Errno.ENOSYS && e.errno() != Errno.EOPNOTSUPP, c,
                    "cannot insert error entries with fi_eq_write: " + e.getMessage());
            throw e;
        }
        EqEntry e = new EqEntry();
        assertEquals(-Errno.EAVAIL, eq.read(e, 0), "an error at the head makes fi_eq_read return -FI_EAVAIL");
        EqErrEntry err = new EqErrEntry();
        assertTrue(eq.readError(err, 0) > 0, "fi_eq_readerr returns the error");
        assertEquals(Errno.ECONNREFUSED, err.err);
        assertEquals(7, err.data);
        assertEquals(-Errno.EAGAIN, eq.read(e, 0));
    }
}
