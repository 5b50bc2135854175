package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfabric.Access;
import io.jfabric.AddressFormat;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.PassiveEndpoint;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * A send that writes no success completion (FI_SELECTIVE_COMPLETION, no FI_COMPLETION) gets no context slot:
 * libfabric never hands its context back, so a slot taken for it would never return. With 32 slots in the
 * domain, 200 such sends (plain and fi_sendmsg) all go out, and a send that asks for its completion afterwards
 * still gets a slot and its context back. And such a send stays silent where native tcp writes a completion for
 * it anyway ({@link #moreWindowsAsJfabricBwPostsThem}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SilentTransmitSlotsTest {
    private static final int SLOTS = 32;
    private static final int ROUNDS = 25;
    private static final int PER_ROUND = 8;

    @BeforeEach
    void fewSlots() {
        System.setProperty(LibfabricProvider.CONTEXT_SLOTS.propertyName(), Integer.toString(SLOTS));
    }

    @AfterEach
    void defaultSlots() {
        System.clearProperty(LibfabricProvider.CONTEXT_SLOTS.propertyName());
    }

    @ParameterizedTest
    @ValueSource(strings = {"libfabric:shm", "libfabric:tcp;ofi_rxm"})
    void silentSendsNeverUseUpTheContextSlots(String prov) {
        try (EndpointPair p = new EndpointPair(prov, Caps.MSG, BindFlags.SELECTIVE_COMPLETION);
             Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(64, 64);
            MemorySegment dst = arena.allocate(64 * PER_ROUND, 64);
            MemoryRegion mrSrc = p.domain.registerMemory(src, Access.SEND, 20);
            MemoryRegion mrDst = p.domain.registerMemory(dst, Access.RECV, 21);
            Msg m = new Msg(1);
            for (int round = 0; round < ROUNDS; round++) {
                for (int i = 0; i < PER_ROUND; i++) {
                    MemorySegment slot = dst.asSlice(64L * i, 64);
                    p.post(() -> p.b.recv(slot, mrDst, p.addrA, "rx"), "fi_recv");
                }
                for (int i = 0; i < PER_ROUND; i++) {
                    if (i % 2 == 0) {
                        p.post(() -> p.a.send(src, mrSrc, p.addrB, "silent"), "fi_send without FI_COMPLETION");
                    } else {
                        m.set(src, mrSrc, p.addrB, "silent msg");
                        p.post(() -> p.a.sendmsg(m, 0), "fi_sendmsg without FI_COMPLETION");
                    }
                }
                p.await(0, PER_ROUND);
                assertTrue(p.errA.isEmpty() && p.errB.isEmpty(), "no errors: " + p.errA + " " + p.errB);
                assertEquals(0, p.doneA.size(), "the sends report nothing: " + p.doneA);
                p.clear();
            }
            p.post(() -> p.b.recv(dst.asSlice(0, 64), mrDst, p.addrA, "rx"), "fi_recv");
            m.set(src, mrSrc, p.addrB, "wanted");
            p.post(() -> p.a.sendmsg(m, OpFlags.COMPLETION), "fi_sendmsg with FI_COMPLETION");
            p.await(1, 1);
            assertSame("wanted", p.doneA.get(0).context, "the send that asked reports with its context");
            mrSrc.close();
            mrDst.close();
        }
    }

    /**
     * The posts of {@code jfabric bw --rate --more} over libfabric:tcp: FI_COMPLETION in the tx op_flags, the
     * transmit CQ bound with FI_SELECTIVE_COMPLETION, windows whose posts but the last carry FI_MORE. First windows of
     * 64 B fi_sendmsg(FI_INJECT | FI_MORE) and fi_inject, with the transmit CQ left unread as the tool leaves it;
     * native tcp 1.17 writes a completion for each fi_sendmsg anyway, with the NULL context the bridge posted it
     * with. Then windows of 256 B fi_sendmsg(FI_COMPLETION | FI_MORE) and fi_send, each followed by one transmit
     * completion per send: every one must carry a context of its window (the tool stalled when the injects'
     * entries stood in for its sends', leaving the sends' slots taken), every message arrives, every slot returns.
     * The transmit CQ: alone in FI_CQ_FORMAT_CONTEXT or DATA, or shared with the receives (DATA).
     */
    @ParameterizedTest
    @ValueSource(strings = {"context", "data", "shared"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void moreWindowsAsJfabricBwPostsThem(String txCqKind) {
        int window = 8;
        int windows = 3 * SLOTS;
        try (Connected c = new Connected(txCqKind); Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(256, 64);
            MemorySegment dst = arena.allocate(256L * window, 64);
            Msg m = new Msg(1);
            for (int w = 0; w < windows; w++) {
                c.postReceives(dst, window);
                for (int i = 0; i < window - 1; i++) {
                    m.set(src.asSlice(0, 64), null, Fabrics.ADDR_UNSPEC, null);
                    c.post(() -> c.client.sendmsg(m, OpFlags.INJECT | OpFlags.MORE), "fi_sendmsg(FI_INJECT|FI_MORE)");
                }
                c.post(() -> c.client.inject(src.asSlice(0, 64), Fabrics.ADDR_UNSPEC), "fi_inject");
                c.awaitArrivals(window, 64);
            }
            Object[] contexts = new Object[window];
            for (int w = 0; w < windows; w++) {
                c.postReceives(dst, window);
                for (int i = 0; i < window; i++) {
                    Object ctx = contexts[i] = "send " + w + "." + i;
                    if (i < window - 1) {
                        m.set(src, null, Fabrics.ADDR_UNSPEC, ctx);
                        c.post(() -> c.client.sendmsg(m, OpFlags.COMPLETION | OpFlags.MORE),
                                "fi_sendmsg(FI_COMPLETION|FI_MORE) in 256 B window " + w);
                    } else {
                        c.post(() -> c.client.send(src, null, Fabrics.ADDR_UNSPEC, ctx),
                                "fi_send in 256 B window " + w);
                    }
                }
                for (int i = 0; i < window; i++) {
                    Object got = c.nextSendCompletion(w);
                    assertTrue(Arrays.asList(contexts).contains(got), "256 B window " + w
                            + ": a send completion with the context " + got + ", not one of the window's "
                            + Arrays.asList(contexts));
                }
                c.awaitArrivals(window, 256);
            }
            assertEquals(-Errno.EAGAIN, c.txCq.read(new CqEntry()), "no completion beyond the sends'");
            assertEquals(SLOTS, ((LibfabricCq) c.txCq).freeSlots(), "every context slot of the sender came back");
        }
    }

    /**
     * A connected FI_EP_MSG pair over libfabric:tcp on loopback: the client is set up as jfabric bw --more sets up
     * its endpoint, the server receives.
     */
    private static final class Connected implements AutoCloseable {
        final Fabric fabric;
        final EventQueue eq;
        final PassiveEndpoint pep;
        final Domain clientDomain;
        final Domain serverDomain;
        final CompletionQueue txCq;
        final CompletionQueue clientRxCq;
        final CompletionQueue serverCq;
        final Endpoint client;
        final Endpoint server;
        private final CqEntry entry = new CqEntry();
        private int arrived;

        Connected(String txCqKind) {
            FabricInfo h = Hints.create().provider("libfabric:tcp").epType(EndpointType.MSG).caps(Caps.MSG)
                    .addrFormat(AddressFormat.SOCKADDR_IN).build();
            List<FabricInfo> infos = new LibfabricProvider().getInfo(Fabrics.API_VERSION, "127.0.0.1", "0",
                    Fabrics.SOURCE, h);
            assertFalse(infos.isEmpty(), "native tcp offers FI_EP_MSG on 127.0.0.1");
            FabricInfo info = infos.get(0);
            fabric = new LibfabricProvider().openFabric(info);
            eq = fabric.openEq(EqAttr.defaults());
            pep = fabric.openPassiveEndpoint(info);
            pep.bind(eq);
            pep.listen();

            clientDomain = fabric.openDomain(info);
            CqFormat txFormat = txCqKind.equals("context") ? CqFormat.CONTEXT : CqFormat.DATA;
            txCq = clientDomain.openCq(CqAttr.of(txFormat, 256));
            clientRxCq = txCqKind.equals("shared") ? txCq : clientDomain.openCq(CqAttr.of(CqFormat.DATA, 64));
            FabricInfo ci = info.copy();
            ci.txAttr.opFlags |= OpFlags.COMPLETION;
            client = clientDomain.openEndpoint(ci);
            client.bind(eq);
            client.bind(txCq, BindFlags.TRANSMIT | BindFlags.SELECTIVE_COMPLETION);
            client.bind(clientRxCq, BindFlags.RECV);
            client.enable();
            client.connect(pep.getName(), null);

            EqEntry req = awaitEvent(EqEvent.CONNREQ);
            serverDomain = fabric.openDomain(req.info);
            serverCq = serverDomain.openCq(CqAttr.of(CqFormat.DATA, 256));
            server = serverDomain.openEndpoint(req.info);
            server.bind(eq);
            server.bind(serverCq, BindFlags.TRANSMIT | BindFlags.RECV);
            server.enable();
            server.accept(null);
            awaitEvent(EqEvent.CONNECTED);
            awaitEvent(EqEvent.CONNECTED);
        }

        private EqEntry awaitEvent(int event) {
            EqEntry e = new EqEntry();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (System.nanoTime() < deadline) {
                int rc = eq.read(e, 0);
                if (rc == event) {
                    return e;
                }
                if (rc != -Errno.EAGAIN) {
                    fail("expected " + EqEvent.toString(event) + ", read " + rc);
                }
                progress();
            }
            return fail("no " + EqEvent.toString(event) + " within 10 s");
        }

        /** Drives both sides without reading the client's transmit completions, as the tool's retries do. */
        void progress() {
            clientRxCq.read(new CqEntry[0], 0);
            if (serverCq != null) { // still connecting
                serverCq.read(new CqEntry[0], 0);
            }
        }

        void postReceives(MemorySegment dst, int n) {
            for (int i = 0; i < n; i++) {
                MemorySegment slot = dst.asSlice(256L * i, 256);
                post(() -> server.recv(slot, null, Fabrics.ADDR_UNSPEC, "rx"), "fi_recv");
            }
        }

        void post(IntSupplier op, String what) {
            long deadline = System.nanoTime() + 5_000_000_000L;
            int rc;
            while ((rc = op.getAsInt()) == -Errno.EAGAIN) {
                progress();
                if (System.nanoTime() > deadline) {
                    fail(what + " kept returning EAGAIN; free context slots of the sender: "
                            + ((LibfabricCq) txCq).freeSlots());
                }
            }
            assertEquals(0, rc, what + " returned " + Errno.name(rc));
        }

        /** The server's next {@code n} receive completions, each of {@code len} bytes. */
        void awaitArrivals(int n, long len) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            int got = 0;
            while (got < n) {
                int rc = serverCq.read(entry);
                if (rc == 1) {
                    assertEquals("rx", entry.context, "only receives complete on the server");
                    assertEquals(len, entry.len);
                    got++;
                    arrived++;
                } else {
                    assertEquals(-Errno.EAGAIN, rc, "server CQ read");
                    clientRxCq.read(new CqEntry[0], 0);
                }
                if (System.nanoTime() > deadline) {
                    fail(got + " of " + n + " messages arrived (" + arrived + " in all)");
                }
            }
        }

        /** The context of the client's next transmit completion in 256 B window {@code w}. */
        Object nextSendCompletion(int w) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (true) {
                int rc = txCq.read(entry);
                if (rc == 1) {
                    if (entry.flags != 0) {
                        assertTrue((entry.flags & OpFlags.SEND) != 0, "a transmit completion: " + entry);
                    }
                    return entry.context;
                }
                assertEquals(-Errno.EAGAIN, rc, "transmit CQ read");
                serverCq.read(new CqEntry[0], 0);
                if (System.nanoTime() > deadline) {
                    fail("256 B window " + w + ": a send never completed");
                }
            }
        }

        @Override
        public void close() {
            client.close();
            server.close();
            if (clientRxCq != txCq) {
                clientRxCq.close();
            }
            txCq.close();
            serverCq.close();
            clientDomain.close();
            serverDomain.close();
            pep.close();
            eq.close();
            fabric.close();
        }
    }
}
