package io.jfabric.provider.rxm;

import io.jfabric.Access;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicIoc;
import io.jfabric.AtomicMsg;
import io.jfabric.AtomicOp;
import io.jfabric.Caps;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rxm's atomic protocol between two tcp;ofi_rxm endpoints of this process: results, several remote ranges in
 * one request, a refusal that travels back in the response's status with the connection left working, the
 * valid answers, and no allocation on the initiator's or the target's path once warm (both run on this thread:
 * the target applies requests in the progress its CQ read drives).
 */
@Timeout(60)
class RxmAtomicTest {
    private static final long ATOMIC_CAPS = Caps.MSG | Caps.TAGGED | Caps.RMA | Caps.ATOMIC;
    private static final long T = 10_000;

    @Test
    void fetchCompareAndMultiRangeResultsAndRefusalKeepsTheConnection() {
        try (RxmNode a = new RxmNode(ATOMIC_CAPS); RxmNode b = new RxmNode(ATOMIC_CAPS);
             Arena arena = Arena.ofConfined()) {
            assertTrue((a.info.caps & Caps.ATOMIC) != 0, "tcp;ofi_rxm offers FI_ATOMIC when asked");
            long ab = a.insert(b.name());
            MemorySegment target = arena.allocate(64, 8);
            target.set(ValueLayout.JAVA_LONG, 0, 40);
            target.set(ValueLayout.JAVA_LONG, 8, 7);
            MemoryRegion mr = b.domain.registerMemory(target, Access.REMOTE_READ | Access.REMOTE_WRITE, 0, 5, 0);
            MemorySegment two = arena.allocate(8, 8);
            two.set(ValueLayout.JAVA_LONG, 0, 2);
            MemorySegment cmp = arena.allocate(8, 8);
            cmp.set(ValueLayout.JAVA_LONG, 0, 7);
            MemorySegment res = arena.allocate(8, 8);
            long base = 0; // tcp's regions are addressed by offset (no FI_MR_VIRT_ADDR)

            complete(a, b, () -> a.ep.fetchAtomic(two, null, res, null, ab, base, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, "f"), "f", OpFlags.ATOMIC | OpFlags.READ);
            assertEquals(40, res.get(ValueLayout.JAVA_LONG, 0), "fetched value");
            assertEquals(42, target.get(ValueLayout.JAVA_LONG, 0), "after FI_SUM");

            complete(a, b, () -> a.ep.compareAtomic(two, null, cmp, null, res, null, ab, base + 8, mr.key(),
                    AtomicDatatype.UINT64, AtomicOp.CSWAP, "c"), "c", OpFlags.ATOMIC | OpFlags.READ);
            assertEquals(7, res.get(ValueLayout.JAVA_LONG, 0), "compare result");
            assertEquals(2, target.get(ValueLayout.JAVA_LONG, 8), "after FI_CSWAP");

            // two remote ranges from two local buffers: one request, applied range by range
            MemorySegment ops = arena.allocate(16, 8);
            ops.set(ValueLayout.JAVA_DOUBLE, 0, 1.5);
            ops.set(ValueLayout.JAVA_DOUBLE, 8, 2.5);
            AtomicMsg msg = new AtomicMsg();
            msg.iov = new MemorySegment[] {ops.asSlice(0, 8), ops.asSlice(8, 8)};
            msg.iovCount = 2;
            AtomicIoc r0 = new AtomicIoc();
            r0.set(base + 16, 1, mr.key());
            AtomicIoc r1 = new AtomicIoc();
            r1.set(base + 40, 1, mr.key());
            msg.rmaIoc = new AtomicIoc[] {r0, r1};
            msg.rmaIocCount = 2;
            msg.addr = ab;
            msg.datatype = AtomicDatatype.DOUBLE;
            msg.op = AtomicOp.ATOMIC_WRITE;
            msg.context = "m";
            complete(a, b, () -> a.ep.atomicmsg(msg, 0), "m", OpFlags.ATOMIC | OpFlags.WRITE);
            assertEquals(1.5, target.get(ValueLayout.JAVA_DOUBLE, 16));
            assertEquals(2.5, target.get(ValueLayout.JAVA_DOUBLE, 40));

            // a wrong key: the target answers ENOKEY, changes nothing, and the connection carries on
            byte[] before = target.toArray(ValueLayout.JAVA_BYTE);
            assertEquals(0, RxmNode.retry(() -> a.ep.atomic(two, null, ab, base, mr.key() + 1, AtomicDatatype.INT64,
                    AtomicOp.SUM, "bad"), T, a, b));
            assertTrue(RxmNode.await(() -> !a.errors.isEmpty(), T, a, b), "no error completion for a wrong key");
            CqErrEntry e = a.errors.getFirst();
            assertEquals("bad", e.context);
            assertEquals(Errno.ENOKEY, e.err);
            assertEquals(java.util.Arrays.toString(before), java.util.Arrays.toString(
                    target.toArray(ValueLayout.JAVA_BYTE)), "target after a refused atomic");
            a.errors.clear();
            complete(a, b, () -> a.ep.atomic(two, null, ab, base, mr.key(), AtomicDatatype.INT64, AtomicOp.SUM,
                    "after"), "after", OpFlags.ATOMIC | OpFlags.WRITE);
            assertEquals(44, target.get(ValueLayout.JAVA_LONG, 0), "the connection works after a refusal");

            assertEquals(16288 / 8, a.ep.atomicValid(AtomicDatatype.UINT64, AtomicOp.SUM), "(16384 - 96) / 8");
            assertEquals(16288 / 2 / 8, a.ep.compareAtomicValid(AtomicDatatype.UINT64, AtomicOp.CSWAP));
            assertEquals(-Errno.EOPNOTSUPP, a.ep.atomicValid(AtomicDatatype.LONG_DOUBLE, AtomicOp.SUM));
            mr.close();
        }
    }

    @Test
    void withoutFiAtomicInTheHintsThereIsNone() {
        try (RxmNode a = new RxmNode()) {
            assertEquals(0, a.info.caps & Caps.ATOMIC, "FI_ATOMIC only when asked for, as libfabric's rxm");
            assertEquals(-Errno.ENOSYS, a.ep.atomicValid(AtomicDatatype.UINT64, AtomicOp.SUM));
        }
    }

    /**
     * FI_ATOMIC over a core whose domain finds regions by key (tcp, verbs), with the same caps and orders over
     * both; not over a native core, whose regions rxm cannot reach. The verbs core here is tcp's info under verbs'
     * name: layering looks at the core's name, endpoint type and caps, which are what a verbs info has too.
     */
    @Test
    void atomicsAreOfferedOverTheTcpAndVerbsCoresOnly() {
        io.jfabric.FabricInfo tcp = io.jfabric.Fabrics.getInfo(io.jfabric.Hints.create().provider("tcp")
                .epType(io.jfabric.EndpointType.MSG).build()).getFirst();
        io.jfabric.FabricInfo hints = io.jfabric.Hints.create().caps(ATOMIC_CAPS).build();
        RxmProvider rxm = new RxmProvider();
        io.jfabric.FabricInfo overTcp = rxm.layer(tcp, hints);
        io.jfabric.FabricInfo verbsCore = tcp.copy();
        verbsCore.fabricAttr.provName = "verbs";
        io.jfabric.FabricInfo overVerbs = rxm.layer(verbsCore, hints);
        assertEquals(Caps.ATOMIC, overTcp.caps & Caps.ATOMIC, "tcp;ofi_rxm");
        assertEquals(Caps.ATOMIC, overVerbs.caps & Caps.ATOMIC, "verbs;ofi_rxm");
        assertEquals(overTcp.txAttr.caps, overVerbs.txAttr.caps);
        assertEquals(overTcp.rxAttr.caps, overVerbs.rxAttr.caps);
        assertEquals(overTcp.txAttr.msgOrder, overVerbs.txAttr.msgOrder);
        io.jfabric.FabricInfo nativeCore = tcp.copy();
        nativeCore.fabricAttr.provName = "libfabric:tcp";
        assertEquals(0, rxm.layer(nativeCore, hints).caps & Caps.ATOMIC, "over a native core");
    }

    private static void complete(RxmNode a, RxmNode b, java.util.function.IntSupplier post, Object ctx, long flags) {
        assertEquals(0, RxmNode.retry(post, T, a, b), "post " + ctx);
        assertTrue(RxmNode.await(() -> a.completionFor(ctx) != null || !a.errors.isEmpty(), T, a, b),
                "no completion for " + ctx);
        assertEquals(0, a.errors.size(), () -> "errors: " + a.errors);
        CqEntry c = a.completionFor(ctx);
        assertNotNull(c);
        assertEquals(flags, c.flags & (OpFlags.ATOMIC | OpFlags.READ | OpFlags.WRITE | OpFlags.RMA));
    }

    /** A fetching FI_SUM, an FI_CSWAP and a plain FI_SUM per round: neither side allocates once warm. */
    @Test
    void warmAtomicsAllocateNothing() {
        try (RxmNode a = new RxmNode(ATOMIC_CAPS); RxmNode b = new RxmNode(ATOMIC_CAPS);
             Arena arena = Arena.ofConfined()) {
            long ab = a.insert(b.name());
            MemorySegment target = arena.allocate(64, 8);
            MemoryRegion mr = b.domain.registerMemory(target, Access.REMOTE_READ | Access.REMOTE_WRITE, 0, 6, 0);
            long base = 0; // tcp's regions are addressed by offset (no FI_MR_VIRT_ADDR)
            long key = mr.key();
            MemorySegment one = arena.allocate(8, 8);
            one.set(ValueLayout.JAVA_LONG, 0, 1);
            MemorySegment cmp = arena.allocate(8, 8);
            MemorySegment res = arena.allocate(8, 8);
            CqEntry[] ea = CqEntry.array(4);
            CqEntry[] eb = CqEntry.array(4);
            Object ctx = "ctx";
            // the first operation makes the connection (EAGAIN until it is up); FI_ATOMIC_READ changes nothing
            complete(a, b, () -> a.ep.fetchAtomic(null, null, res, null, ab, base, key, AtomicDatatype.UINT64,
                    AtomicOp.ATOMIC_READ, "connect"), "connect", OpFlags.ATOMIC | OpFlags.READ);
            assertEquals(0, res.get(ValueLayout.JAVA_LONG, 0));
            long[] perPhase = new long[2];
            int rounds = 0;
            for (int phase = 0; phase < 2; phase++) {
                int n = phase == 0 ? 3000 : 2000;
                long before = RxmAllocationTest.allocated();
                for (int i = 0; i < n; i++) {
                    post(a.ep.fetchAtomic(one, null, res, null, ab, base, key, AtomicDatatype.UINT64, AtomicOp.SUM,
                            ctx), a, b, ea, eb);
                    cmp.set(ValueLayout.JAVA_LONG, 0, res.get(ValueLayout.JAVA_LONG, 0) + 1);
                    post(a.ep.compareAtomic(one, null, cmp, null, res, null, ab, base + 8, key, AtomicDatatype.INT64,
                            AtomicOp.CSWAP, ctx), a, b, ea, eb);
                    post(a.ep.atomic(one, null, ab, base + 16, key, AtomicDatatype.UINT32, AtomicOp.SUM, ctx), a, b,
                            ea, eb);
                    rounds++;
                }
                perPhase[phase] = (RxmAllocationTest.allocated() - before) / n;
            }
            System.out.println("ALLOC bytes per round of three rxm atomics: warm-up " + perPhase[0] + ", warm "
                    + perPhase[1]);
            assertTrue(perPhase[1] < 16, "a warm round of three atomics allocated " + perPhase[1] + " bytes");
            assertEquals(rounds, target.get(ValueLayout.JAVA_LONG, 0), "fetching FI_SUM total");
            assertEquals(rounds, target.get(ValueLayout.JAVA_INT, 16), "FI_SUM total");
            mr.close();
        }
    }

    /** Posts (retrying on EAGAIN) and waits for the one completion, driving both sides; no allocation. */
    private static void post(int first, RxmNode a, RxmNode b, CqEntry[] ea, CqEntry[] eb) {
        assertEquals(0, first, "atomic post");
        long end = System.nanoTime() + T * 1_000_000L;
        while (System.nanoTime() < end) {
            b.cq.read(eb, eb.length);
            int n = a.cq.read(ea, ea.length);
            if (n == 1) {
                return;
            }
            assertEquals(-Errno.EAGAIN, n, "completion read");
        }
        throw new AssertionError("no atomic completion");
    }
}
