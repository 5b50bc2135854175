package io.jfabric.conformance;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.SharedRxContext;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Shared receive contexts on FI_EP_MSG (fi_endpoint(3), fi_srx_context; verbs' SRQ): two connections whose
 * accepting endpoints share one context take their receives from it, each message completing on the receive CQ
 * of the endpoint it arrived on; a message sent before any receive is posted waits for the next shared receive;
 * closing the context under bound endpoints is EBUSY, and once they are gone its receives complete cancelled.
 * {@link SharedRxTest} covers connectionless endpoints.
 */
@Timeout(90)
class SharedRxMsgTest {
    static final long T = 10_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    /** Pair p, whose b shares {@code srx}, and a second connection a2 -> b2 on the same domains, b2 on it too. */
    private record Two(EndpointPair p, SharedRxContext srx, Side a2, Side b2) {
    }

    private Two open(FabricCase c) {
        Gate.msgEndpoint(c);
        Gate.messaging(c);
        Gate.require(c.info().domainAttr.maxEpSrxCtx != 0, c, "offers no shared receive contexts (max_ep_srx_ctx 0)");
        SharedRxContext[] srx = new SharedRxContext[1];
        EndpointPair.Options o = new EndpointPair.Options();
        o.beforeEndpoint = s -> {
            if (s.name.equals("b")) {
                srx[0] = dump.track(s.domain.srxContext(s.info.rxAttr.copy(), "srx"));
                s.info.epAttr.rxCtxCnt = Fabrics.SHARED_CONTEXT;
            }
        };
        o.beforeEnable = s -> {
            if (s.name.equals("b")) {
                s.ep.bind(srx[0]);
            }
        };
        EndpointPair p = EndpointPair.open(c, dump, o);
        Side a2 = new Side("a2", c, dump);
        a2.fabric = p.a.fabric;
        a2.eq = p.a.eq;
        a2.domain = p.a.domain;
        a2.info = c.freshInfo();
        byte[] listenAddr = p.b.pep.getName();
        a2.info.destAddr = listenAddr;
        EndpointPair.openQueuesAndEndpoint(a2, c, dump, new EndpointPair.Options(), a2.info, p.poller);
        a2.ep.connect(listenAddr, null);
        EqEntry req = p.poller.expectEvent(p.b.eq, EqEvent.CONNREQ, T, "the second CONNREQ");
        Side b2 = new Side("b2", c, dump);
        b2.fabric = p.b.fabric;
        b2.eq = p.b.eq;
        b2.domain = p.b.domain;
        b2.info = req.info;
        b2.info.epAttr.rxCtxCnt = Fabrics.SHARED_CONTEXT;
        EndpointPair.Options o2 = new EndpointPair.Options();
        o2.beforeEnable = s -> s.ep.bind(srx[0]);
        EndpointPair.openQueuesAndEndpoint(b2, c, dump, o2, b2.info, p.poller);
        b2.ep.accept(null);
        p.poller.expectEvent(p.b.eq, EqEvent.CONNECTED, T, "b2 CONNECTED");
        p.poller.expectEvent(p.a.eq, EqEvent.CONNECTED, T, "a2 CONNECTED");
        return new Two(p, srx[0], a2, b2);
    }

    @ForEachFabric
    void aSharedReceiveCompletesOnTheCqOfTheEndpointTheMessageCameIn(FabricCase c) {
        Two t = open(c);
        EndpointPair p = t.p();
        try (Arena arena = Arena.ofShared()) {
            CqEntry e = new CqEntry();
            MemorySegment rx = Mem.alloc(arena, 64);
            MemorySegment tx = Mem.alloc(arena, 64);
            for (int round = 0; round < 4; round++) {
                boolean second = round % 2 == 1;
                Side from = second ? t.a2() : p.a;
                Side to = second ? t.b2() : p.b;
                Side other = second ? p.b : t.b2();
                Mem.fill(tx, 10 + round);
                String ctx = "srx-" + round;
                p.poller.post("fi_recv on the srx", () -> t.srx().recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, ctx));
                p.poller.post("fi_send on " + from.name, () -> from.ep.send(tx, from.desc(tx), Fabrics.ADDR_UNSPEC,
                        "tx"));
                p.poller.expectSuccess(from.txCq, new CqEntry(), T, "the send of round " + round);
                p.poller.expectSuccess(to.rxCq, e, T, "the shared receive on " + to.name + "'s CQ");
                assertEquals(ctx, e.context);
                assertEquals(64, e.len);
                assertEquals(-1, Mem.mismatch(rx, 10 + round), "payload of round " + round);
                p.poller.expectQuiet(other.rxCq, 50, "nothing on " + other.name + "'s CQ");
            }
        }
    }

    @ForEachFabric
    void aMessageSentBeforeAnyReceiveTakesTheNextSharedReceive(FabricCase c) {
        Two t = open(c);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment tx = Mem.alloc(arena, 48);
            Mem.fill(tx, 7);
            MemorySegment rx = Mem.alloc(arena, 48);
            EndpointPair p = t.p();
            CqEntry e = new CqEntry();
            p.poller.post("fi_send on a2, nothing posted", () -> t.a2().ep.send(tx, t.a2().desc(tx),
                    Fabrics.ADDR_UNSPEC, "tx"));
            p.poller.expectQuiet(t.b2().rxCq, 100, "no receive is posted yet");
            p.poller.post("fi_recv on the srx", () -> t.srx().recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, "late"));
            p.poller.expectSuccess(t.b2().rxCq, e, T, "the message that waited");
            assertEquals("late", e.context);
            assertEquals(-1, Mem.mismatch(rx, 7));
            p.poller.expectSuccess(t.a2().txCq, new CqEntry(), T, "the send");
        }
    }

    @ForEachFabric
    void closingTheContextCompletesWhatItHeldCancelled(FabricCase c) {
        Two t = open(c);
        EndpointPair p = t.p();
        FabricException busy = assertThrows(FabricException.class, t.srx()::close, "closing it under bound endpoints");
        assertEquals(Errno.EBUSY, busy.errno());
        try (Arena arena = Arena.ofShared()) {
            MemorySegment rx = Mem.alloc(arena, 32);
            p.poller.post("fi_recv on the srx", () -> t.srx().recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, "left"));
            int rc = t.srx().cancel("left");
            assertTrue(rc == 0 || rc == -Errno.ENOSYS, "fi_cancel on the srx: 0, or ENOSYS where work requests "
                    + "cannot be taken back (verbs); got " + rc);
            if (rc == 0) {
                CqErrEntry err = p.poller.expectError(t.b2().rxCq, T, "the cancelled receive");
                assertEquals(Errno.ECANCELED, err.err);
                p.poller.post("fi_recv on the srx", () -> t.srx().recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC,
                        "left"));
            }
            dump.close(p.b.ep);
            dump.close(t.b2().ep);
            dump.close(t.srx());
            // the last endpoint enabled on the context was b2: what the context held completes on its CQ
            CqErrEntry err = p.poller.expectError(t.b2().rxCq, T, "the receive the closed context still held");
            assertEquals(Errno.ECANCELED, err.err);
            assertEquals("left", err.context);
        }
    }
}
