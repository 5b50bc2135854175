package io.jfabric.provider.rxm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Access;
import io.jfabric.BindFlags;
import io.jfabric.Counter;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MemoryRegion;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ofi_rxm counters: each finished operation counts on the counter bound for its kind (FI_SEND, FI_READ,
 * FI_WRITE at the initiator, FI_RECV at the receiver), failures on the error count; remote RMA cannot be
 * counted. The conformance suite's CounterTest covers sends and receives across providers.
 */
@Timeout(60)
class RxmCounterTest extends RxmPairFixture {
    @Test
    void rmaReadsAndWritesCountOnTheirOwnCounters() {
        Counter tx = a.openCounter();
        Counter rd = a.openCounter();
        Counter wr = a.openCounter();
        a.ep.bind(tx, BindFlags.TRANSMIT);
        a.ep.bind(rd, BindFlags.READ);
        a.ep.bind(wr, BindFlags.WRITE);
        MemorySegment target = arena.allocate(4096);
        MemoryRegion mr = b.domain.registerMemory(target, Access.REMOTE_READ | Access.REMOTE_WRITE, 0x77);
        try {
            MemorySegment src = RxmNode.pattern(arena, 4096, 3);
            for (int i = 0; i < 3; i++) {
                assertEquals(0, RxmNode.retry(() -> a.ep.write(src, null, aToB, 0, 0x77, "w"), 10_000, a, b));
            }
            assertEquals(0, RxmNode.retry(() -> a.ep.read(arena.allocate(4096), null, aToB, 0, 0x77, "r"), 10_000,
                    a, b));
            assertTrue(RxmNode.await(() -> wr.read() == 3 && rd.read() == 1, 10_000, a, b),
                    () -> "write counter " + wr.read() + ", read counter " + rd.read() + ", errors " + a.errors);
            assertEquals(0, tx.read(), "RMA is not counted as a send");
            assertEquals(0, wr.readError() + rd.readError());
        } finally {
            mr.close();
        }
        assertThrows(FabricException.class, tx::close, "a bound counter is busy");
    }

    @Test
    void aTruncatedReceiveCountsAsAnError() {
        Counter rx = b.openCounter();
        b.ep.bind(rx, BindFlags.RECV);
        Object r = new Object();
        assertEquals(0, b.ep.recv(arena.allocate(100), null, io.jfabric.Fabrics.ADDR_UNSPEC, r));
        MemorySegment src = RxmNode.pattern(arena, 1000, 5);
        assertEquals(0, RxmNode.retry(() -> a.ep.send(src, null, aToB, null), 10_000, a, b));
        assertTrue(RxmNode.await(() -> rx.readError() == 1, 10_000, a, b), () -> "errors " + b.errors);
        assertEquals(0, rx.read());
        assertEquals(Errno.ETRUNC, b.errorFor(r).err);
    }

    @Test
    void aSecondCounterForTheSameKindIsRefusedAndTheFirstStaysBound() {
        Counter first = a.openCounter();
        Counter second = a.openCounter();
        a.ep.bind(first, BindFlags.TRANSMIT);
        FabricException e = assertThrows(FabricException.class,
                () -> a.ep.bind(second, BindFlags.TRANSMIT | BindFlags.RECV));
        assertEquals(Errno.EINVAL, e.errno());
        second.close(); // nothing was bound: the refusal came before any change
        assertEquals(0, RxmNode.retry(() -> a.ep.send(RxmNode.pattern(arena, 64, 1), null, aToB, null), 10_000, a, b));
        assertTrue(RxmNode.await(() -> first.read() == 1, 10_000, a, b), () -> "sends counted " + first.read());
        assertThrows(FabricException.class, first::close, "still bound, so busy");
    }

    @Test
    void remoteRmaCannotBeCounted() {
        Counter c = a.openCounter();
        FabricException e = assertThrows(FabricException.class, () -> a.ep.bind(c, BindFlags.REMOTE_WRITE));
        assertEquals(Errno.ENOSYS, e.errno());
    }
}
