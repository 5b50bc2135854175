package io.jfabric.conformance;

import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.OpFlags;
import io.jfabric.RxAttr;
import io.jfabric.SharedRxContext;
import io.jfabric.TaggedMsg;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Shared receive contexts (fi_endpoint(3), fi_srx_context): endpoints bound to one context take their receives
 * from it, so a receive posted once matches a message arriving on any of them, tagged or not, from any peer, and
 * with FI_DIRECTED_RECV only from the peer it names; cancel works on the context; closing one endpoint leaves the
 * context's receives to the others; and a provider that has none refuses rx_ctx_cnt FI_SHARED_CONTEXT in getInfo
 * and fi_srx_context with ENOSYS.
 */
@Timeout(60)
class SharedRxTest {
    static final long T = 10_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    /** Whether the case's provider offers shared receive contexts (domain_attr.max_ep_srx_ctx). */
    static boolean advertised(FabricCase c) {
        return c.info().domainAttr.maxEpSrxCtx != 0;
    }

    /** Side b of {@code p} with {@code n} more endpoints bound to one shared receive context, their CQs and AV b's. */
    private record Shared(EndpointPair p, SharedRxContext srx, Endpoint[] eps, long[] fromA) {
    }

    /** A pair of the case whose side b has two more endpoints on one shared receive context. */
    private Shared shared(FabricCase c) {
        return share(open(c, new EndpointPair.Options()), 2, 0);
    }

    private Shared share(EndpointPair p, int n, long rxCaps) {
        RxAttr attr = p.b.info.rxAttr.copy();
        attr.caps |= rxCaps;
        SharedRxContext srx = dump.track(p.b.domain.srxContext(attr, "srx"));
        Endpoint[] eps = new Endpoint[n];
        long[] fromA = new long[n];
        for (int i = 0; i < n; i++) {
            FabricInfo info = p.b.info.copy();
            info.epAttr.rxCtxCnt = Fabrics.SHARED_CONTEXT;
            info.rxAttr.caps |= rxCaps;
            Endpoint ep = dump.track(p.b.domain.openEndpoint(info));
            ep.bind(p.b.av);
            ep.bind(p.b.txCq, BindFlags.TRANSMIT);
            ep.bind(p.b.rxCq, BindFlags.RECV);
            ep.bind(srx);
            ep.enable();
            eps[i] = ep;
            fromA[i] = p.a.av.insert(ep.getName());
        }
        return new Shared(p, srx, eps, fromA);
    }

    private static EndpointPair.Options directed() {
        EndpointPair.Options o = new EndpointPair.Options();
        o.alterInfo = i -> {
            i.caps |= Caps.DIRECTED_RECV;
            i.rxAttr.caps |= Caps.DIRECTED_RECV;
        };
        return o;
    }

    private EndpointPair open(FabricCase c, EndpointPair.Options o) {
        Gate.require(advertised(c), c, "offers no shared receive contexts (max_ep_srx_ctx 0)");
        Gate.messaging(c);
        Gate.connectionless(c);
        return EndpointPair.open(c, dump, o);
    }

    @ForEachFabric
    void aReceivePostedOnceMatchesAMessageOnAnyBoundEndpoint(FabricCase c) {
        Shared s = shared(c);
        EndpointPair p = s.p();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment tx = Mem.alloc(arena, 64);
            MemorySegment rx = Mem.alloc(arena, 64);
            CqEntry e = new CqEntry();
            for (int round = 0; round < 4; round++) {
                int to = round % 2;
                boolean tagged = round >= 2;
                Mem.fill(tx, 100 + round);
                String ctx = "srx-" + round;
                if (tagged) {
                    p.poller.post("fi_trecv on the srx", () -> s.srx.trecv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC,
                            0x77, 0, ctx));
                    p.poller.post("fi_tsend to endpoint " + to, () -> p.a.ep.tsend(tx, p.a.desc(tx), s.fromA[to],
                            0x77, "tx"));
                } else {
                    p.poller.post("fi_recv on the srx", () -> s.srx.recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC,
                            ctx));
                    p.poller.post("fi_send to endpoint " + to, () -> p.a.ep.send(tx, p.a.desc(tx), s.fromA[to],
                            "tx"));
                }
                p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "send " + round);
                p.poller.expectSuccess(p.b.rxCq, e, T, "the srx's receive takes the message to endpoint " + to);
                assertEquals(ctx, e.context, "completion of the shared receive");
                assertEquals(64, e.len);
                assertTrue((e.flags & (tagged ? OpFlags.TAGGED : OpFlags.MSG)) != 0, "flags of " + e);
                assertEquals(-1, Mem.mismatch(rx, 100 + round), "payload of round " + round);
            }
        }
    }

    /** Small (eager, inline) and large (SAR, rendezvous, CMA or pulled) messages that arrive before the receive. */
    @ForEachFabric
    void aMessageThatCameFirstIsTakenByTheNextSharedReceive(FabricCase c) {
        Shared s = shared(c);
        EndpointPair p = s.p();
        CqEntry e = new CqEntry();
        try (Arena arena = Arena.ofShared()) {
            for (long size : new long[] {48, Math.min(256 * 1024, c.maxMsgSize())}) {
                MemorySegment tx = Mem.alloc(arena, size);
                MemorySegment rx = Mem.alloc(arena, size);
                Mem.fill(tx, size);
                p.poller.post("fi_tsend of " + size + " bytes to endpoint 1, nothing posted",
                        () -> p.a.ep.tsend(tx, p.a.desc(tx), s.fromA[1], size, "tx"));
                p.poller.expectQuiet(p.b.rxCq, 100, "no receive is posted yet");
                p.poller.post("fi_trecv on the srx", () -> s.srx.trecv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, size,
                        0, "late"));
                p.poller.expectSuccess(p.b.rxCq, e, T, "the queued message of " + size + " bytes");
                assertEquals("late", e.context);
                assertEquals(size, e.len);
                assertEquals(-1, Mem.mismatch(rx, size), "payload of " + size + " bytes");
                p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "the send of " + size + " bytes");
            }
        }
    }

    /**
     * fi_tagged(3)'s FI_PEEK, FI_CLAIM and FI_DISCARD on a shared context see the messages queued by every endpoint
     * bound to it: one that came to endpoint 0 is claimed and then received, one that came to endpoint 1 is dropped.
     */
    @ForEachFabric
    void peekClaimAndDiscardSeeTheMessagesOfEveryBoundEndpoint(FabricCase c) {
        Shared s = shared(c);
        EndpointPair p = s.p();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment tx = Mem.alloc(arena, 80);
            Mem.fill(tx, 52);
            p.poller.post("fi_tsend 0x51 to endpoint 0", () -> p.a.ep.tsend(tx, p.a.desc(tx), s.fromA[0], 0x51, "t0"));
            p.poller.post("fi_tsend 0x52 to endpoint 1", () -> p.a.ep.tsend(tx, p.a.desc(tx), s.fromA[1], 0x52, "t1"));
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "the first send");
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "the second send");

            MemorySegment rx = Mem.alloc(arena, 80);
            Object claim = new Object();
            CqEntry found = peekUntilFound(c, s, tagged(rx, p, 0x51, claim), OpFlags.CLAIM);
            assertEquals(80, found.len, "the peek tells the length");
            p.poller.post("fi_trecvmsg(FI_CLAIM) on the srx", () -> s.srx.trecvmsg(tagged(rx, p, 0x51, claim),
                    OpFlags.CLAIM));
            CqEntry got = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "the claimed message");
            assertSame(claim, got.context);
            assertEquals(-1, Mem.mismatch(rx, 52), "the claimed message's bytes");

            peekUntilFound(c, s, tagged(rx, p, 0x52, "discard"), OpFlags.DISCARD);
            assertEquals(0, s.srx.trecvmsg(tagged(rx, p, 0x52, "gone"), OpFlags.PEEK));
            CqErrEntry err = new CqErrEntry();
            assertEquals(-Errno.EAVAIL, p.poller.awaitCq(p.b.rxCq, new CqEntry(), err, T), "a discarded message is gone");
            assertEquals(Errno.ENOMSG, err.err);
        }
    }

    private static TaggedMsg tagged(MemorySegment buf, EndpointPair p, long tag, Object context) {
        TaggedMsg m = new TaggedMsg(1);
        m.iov[0] = buf;
        m.desc[0] = p.b.desc(buf);
        m.iovCount = 1;
        m.addr = Fabrics.ADDR_UNSPEC;
        m.tag = tag;
        m.context = context;
        return m;
    }

    /** Peeks on the shared context (with {@code flags}) until the message {@code m} asks for has arrived. */
    private static CqEntry peekUntilFound(FabricCase c, Shared s, TaggedMsg m, long flags) {
        EndpointPair p = s.p();
        long deadline = System.nanoTime() + T * 1_000_000L;
        CqEntry out = new CqEntry();
        CqErrEntry err = new CqErrEntry();
        while (System.nanoTime() < deadline) {
            int rc = s.srx.trecvmsg(m, OpFlags.PEEK | flags);
            Gate.require(rc != -Errno.ENOSYS && rc != -Errno.EOPNOTSUPP && rc != -Errno.EBADFLAGS, c,
                    "does not offer FI_PEEK on a shared context (" + Errno.name(rc) + ")");
            assertEquals(0, rc, "fi_trecvmsg(FI_PEEK) on the srx returned " + Errno.name(rc));
            int got = p.poller.awaitCq(p.b.rxCq, out, err, T);
            if (got == 1) {
                assertSame(m.context, out.context);
                assertEquals(m.tag, out.tag);
                return out;
            }
            assertEquals(-Errno.EAVAIL, got, "FI_PEEK never completed");
            assertEquals(Errno.ENOMSG, err.err, "a peek that finds nothing completes with FI_ENOMSG: " + err);
            p.poller.drive();
        }
        throw new AssertionError("the peek never found tag " + m.tag);
    }

    /**
     * DESIGN.md's "no allocation per operation once warm" for the shared receive path: tagged receives posted on the
     * context and matched on alternating endpoints allocate nothing more per message than receives posted on an
     * endpoint of its own, counted with this thread's allocation counter (manual progress, so every provider's work
     * happens on this thread). shm and tcp;ofi_rxm allocate nothing on either path.
     */
    @ForEachFabric
    void warmSharedReceivesAllocateNothing(FabricCase c) {
        EndpointPair p = open(c, new EndpointPair.Options());
        Gate.require(c.info().domainAttr.dataProgress != io.jfabric.Progress.AUTO, c,
                "runs auto progress: its thread's allocations are not this thread's");
        Shared s = share(p, 2, 0);
        try (Arena arena = Arena.ofShared()) {
            long own = bytesPerMessage(p, null, arena);
            long shared = bytesPerMessage(p, s, arena);
            System.out.println("ALLOC " + c + ": bytes per warm tagged message, own receive " + own + ", shared " + shared);
            // any object per message is at least 16 bytes; less is JIT or GC bookkeeping landing on this thread
            assertTrue(shared < own + 16, "a warm shared receive allocated " + shared + " bytes per message, one "
                    + "posted on the endpoint " + own);
        }
    }

    /** Warm bytes this thread allocates per tagged message, received on b's own endpoint or on {@code s}. */
    private static long bytesPerMessage(EndpointPair p, Shared s, Arena arena) {
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        CqEntry[] tx = CqEntry.array(8);
        CqEntry[] rx = CqEntry.array(8);
        MemorySegment src = Mem.alloc(arena, 64);
        MemorySegment dst = Mem.alloc(arena, 64);
        io.jfabric.MemoryRegion srcDesc = p.a.desc(src);
        io.jfabric.MemoryRegion dstDesc = p.b.desc(dst);
        Object sctx = "s";
        Object rctx = "r";
        long warm = 0;
        for (int phase = 0; phase < 2; phase++) {
            int n = phase == 0 ? 3000 : 2000;
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < n; i++) {
                int rc = s == null ? p.b.ep.trecv(dst, dstDesc, Fabrics.ADDR_UNSPEC, 3, 0, rctx)
                        : s.srx.trecv(dst, dstDesc, Fabrics.ADDR_UNSPEC, 3, 0, rctx);
                assertEquals(0, rc, "fi_trecv");
                long to = s == null ? p.a.peer : s.fromA[i & 1];
                while ((rc = p.a.ep.tsend(src, srcDesc, to, 3, sctx)) == -Errno.EAGAIN) {
                    p.a.txCq.read(tx, tx.length);
                    p.b.rxCq.read(rx, rx.length);
                }
                assertEquals(0, rc, "fi_tsend");
                int gotTx = 0;
                int gotRx = 0;
                long end = System.nanoTime() + Slow.ms(T) * 1_000_000L;
                while ((gotTx == 0 || gotRx == 0) && System.nanoTime() < end) {
                    gotTx += Math.max(0, p.a.txCq.read(tx, tx.length));
                    gotRx += Math.max(0, p.b.rxCq.read(rx, rx.length));
                }
                if (gotTx != 1 || gotRx != 1) {
                    fail("completions tx " + gotTx + ", rx " + gotRx); // built only then: the loop counts bytes
                }
            }
            warm = (mx.getCurrentThreadAllocatedBytes() - before) / n;
        }
        return warm;
    }

    @ForEachFabric
    void sharedContextHintsMatchTheProvider(FabricCase c) {
        Gate.require(advertised(c), c, "offers no shared receive contexts (max_ep_srx_ctx 0)");
        FabricInfo hints = Hints.create().provider(c.provider()).epType(c.epType())
                .mrMode(GetInfoTest.appMrMode(c)).build();
        hints.epAttr.rxCtxCnt = Fabrics.SHARED_CONTEXT;
        List<FabricInfo> infos = Fabrics.getInfo(hints);
        assertTrue(!infos.isEmpty(), "rx_ctx_cnt FI_SHARED_CONTEXT matches " + c.provider());
        assertEquals(Fabrics.SHARED_CONTEXT, infos.getFirst().epAttr.rxCtxCnt, "the info's rx_ctx_cnt");
    }

    @ForEachFabric
    void aDirectedSharedReceiveTakesOnlyItsSendersMessage(FabricCase c) {
        EndpointPair p = open(c, directed());
        Gate.require((p.b.info.rxAttr.caps & Caps.DIRECTED_RECV) != 0, c, "does not offer FI_DIRECTED_RECV");
        Shared s = share(p, 2, Caps.DIRECTED_RECV);
        Endpoint a2 = dump.track(p.a.domain.openEndpoint(p.a.info.copy()));
        a2.bind(p.a.av);
        a2.bind(p.a.txCq, BindFlags.TRANSMIT);
        a2.bind(p.a.rxCq, BindFlags.RECV);
        a2.enable();
        long fromA2 = p.b.av.insert(a2.getName());
        long fromA = p.b.peer;
        CqEntry e = new CqEntry();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment onlyA2 = Mem.alloc(arena, 32);
            MemorySegment any = Mem.alloc(arena, 32);
            MemorySegment tx1 = Mem.alloc(arena, 32);
            Mem.fill(tx1, 1);
            MemorySegment tx2 = Mem.alloc(arena, 32);
            Mem.fill(tx2, 2);
            p.poller.post("fi_recv on the srx from a2 only", () -> s.srx.recv(onlyA2, p.b.desc(onlyA2), fromA2,
                    "from-a2"));
            p.poller.post("a sends to endpoint 0", () -> p.a.ep.send(tx1, p.a.desc(tx1), s.fromA[0], "tx1"));
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "a's send");
            p.poller.expectQuiet(p.b.rxCq, 100, "a's message does not match a receive directed at a2");
            p.poller.post("a2 sends to endpoint 1", () -> a2.send(tx2, p.a.desc(tx2), s.fromA[1], "tx2"));
            p.poller.expectSuccess(p.b.rxCq, e, T, "a2's message");
            assertEquals("from-a2", e.context);
            assertEquals(-1, Mem.mismatch(onlyA2, 2));
            p.poller.post("fi_recv on the srx from any", () -> s.srx.recv(any, p.b.desc(any), Fabrics.ADDR_UNSPEC,
                    "any"));
            p.poller.expectSuccess(p.b.rxCq, e, T, "a's queued message");
            assertEquals("any", e.context);
            assertEquals(fromA, e.srcAddr == Fabrics.ADDR_NOTAVAIL ? fromA : e.srcAddr);
            assertEquals(-1, Mem.mismatch(any, 1));
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "a2's send");
        }
    }

    @ForEachFabric
    void cancelOnTheSharedContext(FabricCase c) {
        Shared s = shared(c);
        EndpointPair p = s.p();
        assertEquals(-Errno.ENOENT, s.srx.cancel("nothing-posted"), "fi_cancel with nothing posted");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment rx = Mem.alloc(arena, 32);
            p.poller.post("fi_trecv on the srx", () -> s.srx.trecv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, 9, 0,
                    "cancel-me"));
            assertEquals(0, s.srx.cancel("cancel-me"), "fi_cancel of a posted shared receive");
            CqErrEntry err = p.poller.expectError(p.b.rxCq, T, "the cancelled receive");
            assertEquals(Errno.ECANCELED, err.err);
            assertEquals("cancel-me", err.context);
            assertEquals(-Errno.ENOENT, s.srx.cancel("never-posted"), "fi_cancel of an unknown context");
        }
    }

    @ForEachFabric
    void closingAnEndpointLeavesTheContextsReceivesToTheOthers(FabricCase c) {
        Shared s = shared(c);
        EndpointPair p = s.p();
        CqEntry e = new CqEntry();
        FabricException busy = assertThrows(FabricException.class, s.srx::close,
                "closing a shared receive context under bound endpoints");
        assertEquals(Errno.EBUSY, busy.errno());
        try (Arena arena = Arena.ofShared()) {
            MemorySegment tx = Mem.alloc(arena, 40);
            MemorySegment rx = Mem.alloc(arena, 40);
            Mem.fill(tx, 3);
            p.poller.post("fi_recv on the srx", () -> s.srx.recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, "kept"));
            dump.close(s.eps[0]);
            p.poller.expectQuiet(p.b.rxCq, 100, "closing endpoint 0 does not cancel the context's receive");
            p.poller.post("a sends to endpoint 1", () -> p.a.ep.send(tx, p.a.desc(tx), s.fromA[1], "tx"));
            p.poller.expectSuccess(p.b.rxCq, e, T, "endpoint 1 takes the receive posted before endpoint 0 closed");
            assertEquals("kept", e.context);
            assertEquals(-1, Mem.mismatch(rx, 3));
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "the send");
            // the last endpoint goes too: what the context still holds completes, cancelled, when it closes
            p.poller.post("fi_recv on the srx", () -> s.srx.recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, "left"));
            dump.close(s.eps[1]);
            dump.close(s.srx);
            CqErrEntry err = p.poller.expectError(p.b.rxCq, T, "the receive the closed context still held");
            assertEquals(Errno.ECANCELED, err.err);
            assertEquals("left", err.context);
        }
    }

    @ForEachFabric
    void aProviderWithoutSharedContextsRefusesThem(FabricCase c) {
        Gate.require(!advertised(c), c, "offers shared receive contexts (the cases above test them)");
        FabricInfo hints = Hints.create().provider(c.provider()).epType(c.epType())
                .mrMode(GetInfoTest.appMrMode(c)).build();
        hints.epAttr.rxCtxCnt = Fabrics.SHARED_CONTEXT;
        List<FabricInfo> infos;
        try {
            infos = Fabrics.getInfo(hints);
        } catch (FabricException e) {
            assertEquals(Errno.ENODATA, e.errno(), "getInfo with rx_ctx_cnt FI_SHARED_CONTEXT: " + e.getMessage());
            infos = List.of();
        }
        for (FabricInfo i : infos) {
            assertTrue(!i.providerName().equals(c.provider()),
                    "rx_ctx_cnt FI_SHARED_CONTEXT matched " + i.providerName() + ", whose max_ep_srx_ctx is 0");
        }
        EndpointPair p = EndpointPair.open(c, dump);
        FabricException e = assertThrows(FabricException.class, () -> p.b.domain.srxContext(new RxAttr(), null),
                "fi_srx_context where max_ep_srx_ctx is 0");
        assertEquals(Errno.ENOSYS, e.errno(), e.getMessage());
    }
}
