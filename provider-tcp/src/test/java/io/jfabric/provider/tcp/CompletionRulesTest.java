package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jfabric.Access;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;
import io.jfabric.Progress;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The completion rules every provider keeps (fi_cq(3), fi_endpoint(3)): a transmit success entry has len 0,
 * every error entry has a nonzero prov_errno, and a second CQ bound for a direction is refused with EINVAL
 * without binding anything.
 */
@Timeout(60)
class CompletionRulesTest {
    @Test
    void aTransmitSuccessCompletionReportsLenZero() {
        try (Arena arena = Arena.ofShared(); Loopback p = new Loopback(false, Progress.MANUAL, null, null)) {
            transmitLenIsZero(arena, p);
        }
    }

    private static void transmitLenIsZero(Arena arena, Loopback p) {
        MemorySegment rx = arena.allocate(256);
        assertEquals(0, p.server.ep.recv(rx, null, 0, "r1"));
        assertEquals(0, p.server.ep.recv(rx, null, 0, "r2"));
        assertEquals(0, p.client.ep.send(arena.allocate(100), null, 0, "send"));
        assertEquals(0, p.client.ep.senddata(arena.allocate(200), null, 7, 0, "senddata"));
        assertEquals(100, p.server.waitCq(10_000).len, "a receive reports the message length");
        assertEquals(200, p.server.waitCq(10_000).len);
        for (String op : new String[] {"send", "senddata"}) {
            CqEntry t = p.client.waitCq(10_000);
            assertEquals(op, t.context);
            assertEquals(0, t.len, op + " completion len");
        }

        MemorySegment target = arena.allocate(4096);
        MemoryRegion mr = p.server.domain.registerMemory(target, Access.REMOTE_WRITE | Access.REMOTE_READ, 0xBEEFL);
        try {
            assertEquals(0, p.client.ep.write(arena.allocate(3000), null, 0, 0, mr.key(), "write"));
            CqEntry w = p.client.waitCq(10_000);
            assertEquals("write", w.context);
            assertEquals(OpFlags.RMA | OpFlags.WRITE, w.flags);
            assertEquals(0, w.len, "write completion len");
            assertEquals(0, p.client.ep.read(arena.allocate(1000), null, 0, 0, mr.key(), "read"));
            CqEntry r = p.client.waitCq(10_000);
            assertEquals("read", r.context);
            assertEquals(0, r.len, "read completion len");
        } finally {
            mr.close();
        }
    }

    @Test
    void everyErrorCompletionCarriesANonzeroProvErrno() {
        try (Arena arena = Arena.ofShared(); Loopback p = new Loopback(false, Progress.MANUAL, null, null)) {
            errorsCarryProvErrno(arena, p);
        }
    }

    private static void errorsCarryProvErrno(Arena arena, Loopback p) {
        assertEquals(0, p.server.ep.recv(arena.allocate(10), null, 0, "small"));
        assertEquals(0, p.client.ep.send(arena.allocate(100), null, 0, "s"));
        CqErrEntry trunc = p.server.waitCqError(10_000);
        assertEquals(Errno.ETRUNC, trunc.err);
        assertEquals(Errno.ETRUNC, trunc.provErrno);

        assertEquals(0, p.server.ep.recv(arena.allocate(10), null, 0, "cancelled"));
        assertEquals(0, p.server.ep.cancel("cancelled"));
        CqErrEntry cancelled = p.server.waitCqError(10_000);
        assertEquals(Errno.ECANCELED, cancelled.err);
        assertEquals(Errno.ECANCELED, cancelled.provErrno);

        // the peer goes away: the receive still posted here is flushed with the connection's error
        assertEquals(0, p.server.ep.recv(arena.allocate(10), null, 0, "orphan"));
        p.client.ep.close();
        CqErrEntry flushed = p.server.waitCqError(10_000);
        assertEquals("orphan", flushed.context);
        assertEquals(Errno.ECONNRESET, flushed.err);
        assertEquals(Errno.ECONNRESET, flushed.provErrno);
    }

    @Test
    void aSecondCqForADirectionIsRefusedAndBindsNothing() {
        FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
        Loopback.Side side = Loopback.open(info);
        CompletionQueue second = side.domain.openCq(CqAttr.of(CqFormat.DATA, 16));
        CompletionQueue third = side.domain.openCq(CqAttr.of(CqFormat.DATA, 16));
        Endpoint ep = side.domain.openEndpoint(info);
        try {
            ep.bind(side.cq, BindFlags.RECV);
            FabricException e = assertThrows(FabricException.class,
                    () -> ep.bind(second, BindFlags.TRANSMIT | BindFlags.RECV));
            assertEquals(Errno.EINVAL, e.errno());
            second.close(); // FI_TRANSMIT was refused with FI_RECV, not bound first: nothing holds the CQ
            ep.bind(third, BindFlags.TRANSMIT); // and the transmit direction is still free
            assertEquals(Errno.EBUSY, assertThrows(FabricException.class, third::close).errno());
            assertEquals(Errno.EBUSY, assertThrows(FabricException.class, side.cq::close).errno(),
                    "the first receive CQ stays bound");
        } finally {
            ep.close();
            third.close();
            Loopback.closeSide(side);
            side.fabric.close();
        }
    }
}
