package io.jfabric.conformance;

import io.jfabric.Access;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Caps;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.OpFlags;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * fi_atomic(3) on every provider that advertises FI_ATOMIC: every operation on every datatype the provider
 * answers valid for (and the answers themselves against libfabric's table), with the target's new elements and
 * the fetched ones checked against {@link AtomicModel}; then the refusals: a wrong key, missing access, a range
 * outside the region, a misaligned address and a count above the valid answer, each with its documented error and
 * no target byte changed.
 */
@Timeout(120)
class AtomicTest {
    static final long T = 20_000;
    static final int SLOT = 64;

    /**
     * Providers whose atomics are the adapter's own (RC verbs): the responder answers a wrong key and a range
     * outside the region with one remote access status (FI_EACCES, as for RMA, see RefusedRmaTest), and checks one
     * right, IBV_ACCESS_REMOTE_ATOMIC, which FI_REMOTE_WRITE grants, for fetching atomics too.
     */
    static final java.util.Set<String> HARDWARE_ATOMICS = java.util.Set.of("verbs");

    @RegisterExtension
    final StateDump dump = new StateDump();

    /**
     * The case to run atomics on: {@code c} itself, or, for a provider that offers FI_ATOMIC only when the hints ask
     * for it (libfabric 1.17's rxm leaves it out of the null-hints answer the suite's cases come from), the info
     * discovery returns for the same provider, endpoint type and address with FI_ATOMIC asked for. Skips when
     * neither has FI_ATOMIC.
     */
    static FabricCase gate(FabricCase c) {
        c = withAtomics(c);
        Gate.require(c.hasCaps(Caps.ATOMIC), c, "lacks FI_ATOMIC, also when the hints ask for it");
        Gate.reliable(c);
        Gate.require((c.info().domainAttr.mrMode & MrMode.RAW) == 0, c,
                "uses FI_MR_RAW keys, which the suite does not exchange");
        return c;
    }

    /** {@code c}, or the same provider's info with FI_ATOMIC when the hints ask for it (see {@link #gate}). */
    static FabricCase withAtomics(FabricCase c) {
        if (c.hasCaps(Caps.ATOMIC)) {
            return c;
        }
        io.jfabric.Hints h = io.jfabric.Hints.create().provider(c.provider()).epType(c.epType())
                .caps(c.info().caps | Caps.ATOMIC);
        if (c.info().domainAttr != null) {
            h.mrMode(c.info().domainAttr.mrMode);
        }
        if (c.info().srcAddr != null) {
            h.srcAddr(c.info().srcAddr).addrFormat(c.info().addrFormat);
        }
        try {
            io.jfabric.FabricInfo best = null;
            for (io.jfabric.FabricInfo i : io.jfabric.Fabrics.getInfo(h.build())) {
                if ((i.caps & Caps.ATOMIC) != 0 && (best == null || FabricCases.rank(i) < FabricCases.rank(best))) {
                    best = i;
                }
            }
            return best == null ? c : new FabricCase(c.id(), best);
        } catch (io.jfabric.FabricException e) {
            return c; // ENODATA: not offered with FI_ATOMIC either
        }
    }

    @ForEachFabric
    void everyOperationOnEveryDatatype(FabricCase c) {
        c = gate(c);
        EndpointPair p = EndpointPair.open(c, dump);
        List<String> failures = new ArrayList<>();
        int ran = 0;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = Mem.alloc(arena, SLOT);
            MemoryRegion mr = p.b.register(target, Access.REMOTE_READ | Access.REMOTE_WRITE);
            MemorySegment src = Mem.alloc(arena, SLOT);
            MemorySegment cmp = Mem.alloc(arena, SLOT);
            MemorySegment res = Mem.alloc(arena, SLOT);
            for (AtomicDatatype t : AtomicDatatype.values()) {
                for (AtomicOp op : AtomicOp.values()) {
                    for (int kind = AtomicModel.WRITE; kind <= AtomicModel.COMPARE; kind++) {
                        long valid = valid(p, kind, t, op);
                        if (!AtomicModel.libfabricOffers(kind, t, op)) {
                            assertTrue(valid < 0, kindName(kind) + " valid(" + t + ", " + op + ") answered " + valid
                                    + " for a combination libfabric does not define");
                            continue;
                        }
                        if (valid < 0) {
                            assertEquals(-Errno.EOPNOTSUPP, valid, kindName(kind) + " valid(" + t + ", " + op + ")");
                            assertTrue(t == AtomicDatatype.LONG_DOUBLE || t == AtomicDatatype.LONG_DOUBLE_COMPLEX
                                            || !c.provider().startsWith("shm"),
                                    "shm refuses only the long double types, not " + t + " " + op);
                            continue;
                        }
                        assertTrue(valid >= 1, "valid count for " + t + " " + op + " is " + valid);
                        if (t == AtomicDatatype.LONG_DOUBLE || t == AtomicDatatype.LONG_DOUBLE_COMPLEX) {
                            continue; // offered natively; the test's model has no 80-bit arithmetic to check it
                        }
                        String miss = runOne(p, kind, t, op, (int) Math.min(2, valid), target, mr, src, cmp, res);
                        if (miss != null) {
                            failures.add(miss);
                        }
                        ran++;
                    }
                }
            }
        }
        assertTrue(ran > 0, "no operation ran");
        assertEquals(List.of(), failures, failures.size() + " of " + ran + " operations gave wrong results");
    }

    private static String kindName(int kind) {
        return kind == AtomicModel.WRITE ? "fi_atomic" : kind == AtomicModel.FETCH ? "fi_fetch_atomic"
                : "fi_compare_atomic";
    }

    static long valid(EndpointPair p, int kind, AtomicDatatype t, AtomicOp op) {
        return kind == AtomicModel.WRITE ? p.a.ep.atomicValid(t, op) : kind == AtomicModel.FETCH
                ? p.a.ep.fetchAtomicValid(t, op) : p.a.ep.compareAtomicValid(t, op);
    }

    /** One operation on {@code n} elements; returns a description of what differed from the model, or null. */
    private String runOne(EndpointPair p, int kind, AtomicDatatype t, AtomicOp op, int n, MemorySegment target,
                          MemoryRegion mr, MemorySegment src, MemorySegment cmp, MemorySegment res) {
        long bytes = (long) n * t.size();
        double[][] before = AtomicModel.target(t);
        for (int i = 0; i < n; i++) {
            AtomicModel.put(t, target, i, before[i]);
            AtomicModel.put(t, src, i, AtomicModel.operand(t)[i]);
            AtomicModel.put(t, cmp, i, AtomicModel.compare(t)[i]);
        }
        Mem.fill(res, (byte) 0x5c);
        MemorySegment s = src.asSlice(0, bytes);
        MemorySegment r = res.asSlice(0, bytes);
        MemorySegment k = cmp.asSlice(0, bytes);
        long addr = p.b.remoteAddr(mr, 0);
        String what = kindName(kind) + "(" + t.cName() + ", " + op.cName() + ")";
        p.poller.post(what, () -> switch (kind) {
            case AtomicModel.WRITE -> p.a.ep.atomic(s, p.a.desc(src), p.a.peer, addr, mr.key(), t, op, what);
            case AtomicModel.FETCH -> p.a.ep.fetchAtomic(op == AtomicOp.ATOMIC_READ ? null : s, p.a.desc(src), r,
                    p.a.desc(res), p.a.peer, addr, mr.key(), t, op, what);
            default -> p.a.ep.compareAtomic(s, p.a.desc(src), k, p.a.desc(cmp), r, p.a.desc(res), p.a.peer, addr,
                    mr.key(), t, op, what);
        });
        CqEntry e = p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, what);
        assertSame(what, e.context);
        long dir = kind == AtomicModel.WRITE ? OpFlags.WRITE : OpFlags.READ;
        assertEquals(OpFlags.ATOMIC | dir, e.flags & (OpFlags.ATOMIC | OpFlags.READ | OpFlags.WRITE | OpFlags.RMA),
                what + " completion flags");
        StringBuilder miss = new StringBuilder();
        long until = System.nanoTime() + T * 1_000_000L;
        for (int i = 0; i < n; i++) {
            double[] want = AtomicModel.after(t, op, before[i], AtomicModel.operand(t)[i], AtomicModel.compare(t)[i]);
            double[] got = AtomicModel.get(t, target, i);
            while (kind == AtomicModel.WRITE && !java.util.Arrays.equals(want, got) && System.nanoTime() < until) {
                p.poller.drive(); // a plain atomic's completion may come before the target applied it
                got = AtomicModel.get(t, target, i);
            }
            if (!java.util.Arrays.equals(want, got)) {
                miss.append(" target[").append(i).append("] ").append(java.util.Arrays.toString(got))
                        .append(" want ").append(java.util.Arrays.toString(want));
            }
            if (kind != AtomicModel.WRITE && !java.util.Arrays.equals(before[i], AtomicModel.get(t, res, i))) {
                miss.append(" result[").append(i).append("] ").append(java.util.Arrays.toString(
                        AtomicModel.get(t, res, i))).append(" want ").append(java.util.Arrays.toString(before[i]));
            }
        }
        return miss.isEmpty() ? null : what + ":" + miss;
    }

    // ---- refusals --------------------------------------------------------------------------------

    @ForEachFabric
    void wrongKeyIsRefusedAndTheTargetUnchanged(FabricCase c) {
        refused(c, Access.REMOTE_READ | Access.REMOTE_WRITE, 1, 0, AtomicModel.WRITE,
                HARDWARE_ATOMICS.contains(c.provider()) ? Errno.EACCES : Errno.ENOKEY, "a wrong key");
    }

    @ForEachFabric
    void missingRemoteWriteIsRefusedAndTheTargetUnchanged(FabricCase c) {
        refused(c, Access.REMOTE_READ, 0, 0, AtomicModel.WRITE, Errno.EACCES, "a key without FI_REMOTE_WRITE");
    }

    @ForEachFabric
    void fetchWithoutRemoteReadIsRefusedAndTheTargetUnchanged(FabricCase c) {
        Gate.require(!HARDWARE_ATOMICS.contains(c.provider()), c, "RC atomics check IBV_ACCESS_REMOTE_ATOMIC only,"
                + " which FI_REMOTE_WRITE grants as in libfabric's verbs: a fetch needs no FI_REMOTE_READ there");
        refused(c, Access.REMOTE_WRITE, 0, 0, AtomicModel.FETCH, Errno.EACCES, "a key without FI_REMOTE_READ");
    }

    @ForEachFabric
    void rangeOutsideTheRegionIsRefusedAndTheTargetUnchanged(FabricCase c) {
        refused(c, Access.REMOTE_READ | Access.REMOTE_WRITE, 0, -8, AtomicModel.WRITE,
                HARDWARE_ATOMICS.contains(c.provider()) ? Errno.EACCES : Errno.EINVAL,
                "a range running past the region's end");
    }

    @ForEachFabric
    void misalignedAddressIsRefusedAndTheTargetUnchanged(FabricCase c) {
        refused(c, Access.REMOTE_READ | Access.REMOTE_WRITE, 0, 4, AtomicModel.FETCH, Errno.EINVAL,
                "an address not a multiple of 8");
    }

    /**
     * An FI_SUM (or fetching FI_SUM) of two UINT64 elements (one where the provider's valid answer is 1) through
     * {@code keyXor}/{@code offset} (negative: that many bytes before the end of the elements' last possible
     * start): an error completion with {@code err}, or the same errno at post time, and the target's bytes as
     * they were.
     */
    private void refused(FabricCase c, long access, long keyXor, long offset, int kind, int err, String what) {
        c = gate(c);
        // jfabric's providers give fi_atomic(3)'s errors exactly; a native one behind the bridge its own
        boolean bridged = c.provider().startsWith("libfabric:");
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = Mem.alloc(arena, SLOT);
            Mem.fill(target, (byte) 0x44);
            MemoryRegion mr = p.b.register(target, access);
            long elements = Math.min(2, p.a.ep.fetchAtomicValid(AtomicDatatype.UINT64, AtomicOp.SUM));
            MemorySegment src = Mem.alloc(arena, elements * 8).fill((byte) 1);
            MemorySegment res = Mem.alloc(arena, elements * 8).fill((byte) 0x11);
            long addr = p.b.remoteAddr(mr, offset >= 0 ? offset : SLOT - elements * 8 - offset);
            long key = mr.key() ^ keyXor;
            int rc = p.poller.tryPost(() -> kind == AtomicModel.WRITE
                    ? p.a.ep.atomic(src, p.a.desc(src), p.a.peer, addr, key, AtomicDatatype.UINT64, AtomicOp.SUM, "bad")
                    : p.a.ep.fetchAtomic(src, p.a.desc(src), res, p.a.desc(res), p.a.peer, addr, key,
                    AtomicDatatype.UINT64, AtomicOp.SUM, "bad"));
            if (rc == 0 && bridged && kind == AtomicModel.WRITE) {
                // fi_cq(3): a transmit-complete fi_atomic may complete before the target looked at it; the bridge
                // has no msg form to ask for FI_DELIVERY_COMPLETE, so only the target's bytes tell here
                awaitAny(p, "an atomic through " + what);
            } else if (rc == 0) {
                CqErrEntry e = p.poller.expectError(p.a.txCq, T, "an atomic through " + what);
                assertSame("bad", e.context);
                if (bridged) {
                    assertTrue(e.err != 0, "error of an atomic through " + what + ": " + e);
                } else {
                    assertEquals(err, e.err, "error of an atomic through " + what + ": " + e);
                }
            } else {
                assertTrue(bridged ? rc < 0 : rc == -err, "an atomic through " + what + " refused at post time: "
                        + Errno.name(rc));
            }
            p.poller.expectQuiet(p.b.rxCq, 100, "target after a refused atomic");
            assertEquals(-1, Mem.mismatch(target, (byte) 0x44), "target untouched after an atomic through " + what);
            assertEquals(-1, Mem.mismatch(res, (byte) 0x11), "no result written after an atomic through " + what);
        }
    }

    /** Waits for the next completion of a's transmit CQ, success or error. */
    private static void awaitAny(EndpointPair p, String what) {
        CqEntry[] one = {new CqEntry()};
        long until = System.nanoTime() + T * 1_000_000L;
        int n;
        while ((n = p.a.txCq.read(one, 1)) == -Errno.EAGAIN && System.nanoTime() < until) {
            p.poller.drive();
        }
        if (n == -Errno.EAVAIL) {
            p.a.txCq.readError(new CqErrEntry(), 0);
        } else {
            assertEquals(1, n, what + ": no completion within " + T + " ms");
        }
    }

    @ForEachFabric
    void countAboveTheValidAnswerIsRefusedAtPost(FabricCase c) {
        c = gate(c);
        EndpointPair p = EndpointPair.open(c, dump);
        // the adapter's atomics (verbs) act on 64-bit words only
        AtomicDatatype t = p.a.ep.atomicValid(AtomicDatatype.UINT8, AtomicOp.SUM) > 0 ? AtomicDatatype.UINT8
                : AtomicDatatype.UINT64;
        long max = p.a.ep.atomicValid(t, AtomicOp.SUM);
        assertTrue(max > 0, "atomicValid(" + t.cName() + ", FI_SUM) = " + max);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = Mem.alloc(arena, (max + 1) * t.size());
            Mem.fill(target, (byte) 0x44);
            MemoryRegion mr = p.b.register(target, Access.REMOTE_READ | Access.REMOTE_WRITE);
            MemorySegment src = Mem.alloc(arena, (max + 1) * t.size());
            Mem.fill(src, (byte) 1);
            int rc = p.a.ep.atomic(src, p.a.desc(src), p.a.peer, p.b.remoteAddr(mr, 0), mr.key(), t, AtomicOp.SUM,
                    "too-many");
            assertEquals(-Errno.EINVAL, rc, (max + 1) + " elements, one more than atomicValid answers");
            int odd = p.a.ep.atomic(src.asSlice(0, 3), p.a.desc(src), p.a.peer, p.b.remoteAddr(mr, 0), mr.key(),
                    AtomicDatatype.UINT16, AtomicOp.SUM, "odd");
            assertEquals(-Errno.EINVAL, odd, "a 3-byte buffer of FI_UINT16 elements");
            p.poller.expectQuiet(p.a.txCq, 100, "nothing completes for operations refused at post time");
            assertEquals(-1, Mem.mismatch(target, (byte) 0x44), "target untouched");
        }
    }

    @ForEachFabric
    void providersWithoutAtomicsAnswerEnosys(FabricCase c) {
        Gate.require(!c.hasCaps(Caps.ATOMIC), c, "advertises FI_ATOMIC");
        Gate.reliable(c);
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment src = Mem.alloc(arena, 8);
            src.set(ValueLayout.JAVA_LONG, 0, 1);
            assertEquals(-Errno.ENOSYS, p.a.ep.atomicValid(AtomicDatatype.UINT64, AtomicOp.SUM));
            int rc = p.a.ep.atomic(src, p.a.desc(src), p.a.peer, 0, 0, AtomicDatatype.UINT64, AtomicOp.SUM, "x");
            if (rc != -Errno.ENOSYS) {
                fail(c.id() + " does not advertise FI_ATOMIC, yet fi_atomic answered " + Errno.name(rc));
            }
        }
    }

    static void assertBytes(byte[] want, MemorySegment got) {
        assertArrayEquals(want, got.toArray(ValueLayout.JAVA_BYTE));
    }
}
