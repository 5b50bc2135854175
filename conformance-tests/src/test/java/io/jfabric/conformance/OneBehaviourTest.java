package io.jfabric.conformance;

import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Calls that once behaved differently from provider to provider, each now held to one answer everywhere
 * (issue 19, "one behaviour everywhere"; docs/differences.md gives the choices and their reasons).
 */
@Timeout(60)
class OneBehaviourTest {
    static final long T = 20_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    /** fi_connect and fi_accept on a connectionless endpoint: libfabric's fi_no_connect, -FI_ENOSYS. */
    @ForEachFabric
    void connectOnAConnectionlessEndpointIsNotSupported(FabricCase c) {
        Gate.connectionless(c);
        EndpointPair p = EndpointPair.open(c, dump);
        byte[] peer = p.b.ep.getName();
        assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> p.a.ep.connect(peer, null)).errno(),
                "fi_connect on " + c.epType());
        assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> p.a.ep.accept(null)).errno(),
                "fi_accept on " + c.epType());
    }

    /** A second CQ for a direction that has one: EINVAL, and the first binding stays in force. */
    @ForEachFabric
    void aSecondCqForADirectionIsRefusedAndChangesNothing(FabricCase c) {
        Gate.messaging(c);
        AtomicReference<Integer> refused = new AtomicReference<>();
        EndpointPair.Options o = new EndpointPair.Options();
        o.beforeEnable = s -> {
            if (!s.name.equals("a")) {
                return;
            }
            CompletionQueue extra = dump.track(s.domain.openCq(CqAttr.of(CqFormat.TAGGED, 64)));
            refused.set(assertThrows(FabricException.class, () -> s.ep.bind(extra, BindFlags.TRANSMIT)).errno());
        };
        EndpointPair p = EndpointPair.open(c, dump, o);
        assertNotNull(refused.get(), "the second bind was tried");
        assertEquals(Errno.EINVAL, refused.get().intValue(), "a second transmit CQ");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment rx = Mem.alloc(arena, 64);
            MemorySegment tx = Mem.alloc(arena, 64);
            Mem.fill(tx, 3);
            p.poller.post("fi_recv", () -> p.b.ep.recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, "rx"));
            p.poller.post("fi_send", () -> p.a.ep.send(tx, p.a.desc(tx), p.a.peer, "tx"));
            assertSame("tx", p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "the send, on the first CQ").context);
            assertSame("rx", p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "the receive").context);
        }
    }

    /**
     * fi_cq(3): len applies to receives (and to remote-CQ-data writes at the target). jfabric's providers all
     * report 0 for a transmit completion; native libfabric providers differ among themselves, so only the
     * receive side is held for them.
     */
    @ForEachFabric
    void transmitCompletionsReportLenZeroAndReceivesTheirLength(FabricCase c) {
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment rx = Mem.alloc(arena, 256);
            MemorySegment tx = Mem.alloc(arena, 100);
            Mem.fill(tx, 5);
            p.poller.post("fi_recv", () -> p.b.ep.recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, "rx"));
            p.poller.post("fi_send", () -> p.a.ep.send(tx, p.a.desc(tx), p.a.peer, "tx"));
            CqEntry sent = p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "send completion");
            CqEntry got = p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "receive completion");
            assertEquals(100, got.len, "a receive reports the bytes received");
            if (!isNative(c)) {
                assertEquals(0, sent.len, "a transmit completion's len");
            }
        }
    }

    /** An error completion carries a provider errno, so fi_cq_strerror names the error instead of "Success". */
    @ForEachFabric
    void errorCompletionsCarryAProviderErrno(FabricCase c) {
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment rx = Mem.alloc(arena, 64);
            p.poller.post("fi_recv", () -> p.b.ep.recv(rx, p.b.desc(rx), Fabrics.ADDR_UNSPEC, "doomed"));
            int rc = p.b.ep.cancel("doomed");
            // an RC queue pair cannot take back a posted receive: verbs answers fi_cancel as libfabric's does
            Gate.require(rc != -Errno.ENOSYS, c, "does not offer fi_cancel (FI_ENOSYS); its error completions are"
                    + " checked where it can fail an operation on purpose (VerbsScenario)");
            assertEquals(0, rc, "fi_cancel of a posted receive");
            CqErrEntry err = p.poller.expectError(p.b.rxCq, T, "the cancelled receive");
            assertEquals(Errno.ECANCELED, err.err);
            assertSame("doomed", err.context);
            if (!isNative(c)) {
                assertNotEquals(0, err.provErrno, "prov_errno of " + err);
                assertNotEquals("Success", p.b.rxCq.strerror(err.provErrno, err.errData));
            }
        }
    }

    private static boolean isNative(FabricCase c) {
        return c.provider().startsWith("libfabric:");
    }
}
