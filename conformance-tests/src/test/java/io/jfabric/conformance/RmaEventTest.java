package io.jfabric.conformance;

import io.jfabric.Access;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CqEntry;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * FI_RMA_EVENT (fi_getinfo(3)): a provider that offers it lets the target of RMA see it, through counters bound
 * with FI_REMOTE_WRITE and FI_REMOTE_READ (fi_endpoint(3)). Each write and read the target serves counts once, on
 * the counter of its kind only, and a write's bytes are in place by the time it counts.
 */
@Timeout(60)
class RmaEventTest {
    static final long T = 20_000;
    static final int LEN = 4096;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void theTargetsRemoteCountersCountEachWriteAndReadItServes(FabricCase c) {
        Gate.rma(c);
        Gate.require(c.hasCaps(Caps.RMA_EVENT), c, "offers no FI_RMA_EVENT");
        Gate.require((c.info().domainAttr.mrMode & MrMode.RMA_EVENT) == 0, c,
                "uses FI_MR_RMA_EVENT, whose regions count through counters bound to them (not tested here)");
        Counter[] remote = new Counter[2];
        EndpointPair.Options o = new EndpointPair.Options();
        o.beforeEndpoint = s -> {
            if (s.name.equals("b")) {
                remote[0] = dump.track(s.domain.openCounter(CounterAttr.defaults()));
                remote[1] = dump.track(s.domain.openCounter(CounterAttr.defaults()));
            }
        };
        o.beforeEnable = s -> {
            if (s.name.equals("b")) {
                s.ep.bind(remote[0], BindFlags.REMOTE_WRITE);
                s.ep.bind(remote[1], BindFlags.REMOTE_READ);
            }
        };
        EndpointPair p = EndpointPair.open(c, dump, o);
        Counter writes = remote[0];
        Counter reads = remote[1];
        int n = 4;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = Mem.alloc(arena, n * LEN);
            Mem.fill(target, (byte) 0);
            MemoryRegion mr = p.b.register(target, Access.REMOTE_READ | Access.REMOTE_WRITE);
            MemorySegment src = Mem.alloc(arena, n * LEN);
            for (int i = 0; i < n; i++) {
                Mem.fill(src.asSlice((long) i * LEN, LEN), 30 + i);
            }
            MemoryRegion srcDesc = p.a.desc(src);
            for (int i = 0; i < n; i++) {
                long off = (long) i * LEN;
                MemorySegment piece = src.asSlice(off, LEN);
                p.poller.post("fi_write", () -> p.a.ep.write(piece, srcDesc, p.a.peer, p.b.remoteAddr(mr, off),
                        mr.key(), "w"));
                p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "fi_write " + i);
            }
            driveUntil(p, writes, n);
            assertEquals(n, writes.read(), "the FI_REMOTE_WRITE counter counts each write the target served");
            assertEquals(-1, target.mismatch(src), "every write's bytes are in place once it has counted");

            MemorySegment back = Mem.alloc(arena, LEN);
            MemoryRegion backDesc = p.a.desc(back);
            for (int i = 0; i < n - 1; i++) {
                long off = (long) i * LEN;
                p.poller.post("fi_read", () -> p.a.ep.read(back, backDesc, p.a.peer, p.b.remoteAddr(mr, off),
                        mr.key(), "r"));
                p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "fi_read " + i);
            }
            driveUntil(p, reads, n - 1);
            assertEquals(n - 1, reads.read(), "the FI_REMOTE_READ counter counts each read the target served");
            assertEquals(n, writes.read(), "reads leave the FI_REMOTE_WRITE counter alone");
            assertEquals(0, writes.readError());
            assertEquals(0, reads.readError());
        }
    }

    /** The target's counter may trail the initiator's completion (transmit complete): give it a bounded time. */
    private static void driveUntil(EndpointPair p, Counter counter, long value) {
        long until = System.nanoTime() + T * 1_000_000L;
        while (counter.read() < value && System.nanoTime() < until) {
            p.poller.drive();
        }
    }
}
