package io.jfabric.conformance.xmatrix;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Endpoint;
import io.jfabric.MemoryRegion;
import io.jfabric.conformance.AtomicModel;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The matrix's atomic cell: every operation libfabric defines on FI_INT64, FI_UINT64 and FI_DOUBLE, as fi_atomic,
 * fi_fetch_atomic and fi_compare_atomic, one element each and each on its own 8-byte slot of the target's RMA area
 * (slot i for cell i). The target's slots start at the model's first target element; the initiator's operands sit
 * in slot i of its transmit area and its compare operands in slot {@code CELLS.size() + i}, its results land in
 * slot i of its receive area. The target checks its slots against {@link AtomicModel}, the initiator the fetched
 * elements (each the target's value before the operation).
 */
final class MatrixAtomics {
    private static final AtomicDatatype[] TYPES = {AtomicDatatype.INT64, AtomicDatatype.UINT64, AtomicDatatype.DOUBLE};
    private static final byte UNWRITTEN = (byte) 0x5c;

    /** One operation on one slot. */
    record Cell(AtomicDatatype type, AtomicOp op, int kind) {
        String call() {
            String f = kind == AtomicModel.WRITE ? "fi_atomic" : kind == AtomicModel.FETCH ? "fi_fetch_atomic"
                    : "fi_compare_atomic";
            return f + "(" + type.cName() + ", " + op.cName() + ")";
        }

        int post(Endpoint ep, MemorySegment tx, MemorySegment rx, MemoryRegion mr, long peer, long remoteAddr,
                 long key, int slot, Object context) {
            MemorySegment src = tx.asSlice(slot * 8L, 8);
            MemorySegment cmp = tx.asSlice((CELLS.size() + slot) * 8L, 8);
            MemorySegment res = rx.asSlice(slot * 8L, 8);
            long addr = remoteAddr + slot * 8L;
            return switch (kind) {
                case AtomicModel.WRITE -> ep.atomic(src, mr, peer, addr, key, type, op, context);
                case AtomicModel.FETCH -> ep.fetchAtomic(op == AtomicOp.ATOMIC_READ ? null : src, mr, res, mr, peer,
                        addr, key, type, op, context);
                default -> ep.compareAtomic(src, mr, cmp, mr, res, mr, peer, addr, key, type, op, context);
            };
        }
    }

    static final List<Cell> CELLS = cells();

    private MatrixAtomics() {
    }

    private static List<Cell> cells() {
        List<Cell> all = new ArrayList<>();
        for (AtomicDatatype t : TYPES) {
            for (int kind = AtomicModel.WRITE; kind <= AtomicModel.COMPARE; kind++) {
                for (AtomicOp op : AtomicOp.values()) {
                    if (AtomicModel.libfabricOffers(kind, t, op)) {
                        all.add(new Cell(t, op, kind));
                    }
                }
            }
        }
        return List.copyOf(all);
    }

    static void prepTarget(MemorySegment area) {
        for (int i = 0; i < CELLS.size(); i++) {
            AtomicDatatype t = CELLS.get(i).type;
            AtomicModel.put(t, area, i, AtomicModel.target(t)[0]);
        }
    }

    static void prepInitiator(MemorySegment tx, MemorySegment rx) {
        int n = CELLS.size();
        rx.asSlice(0, n * 8L).fill(UNWRITTEN);
        for (int i = 0; i < n; i++) {
            AtomicDatatype t = CELLS.get(i).type;
            AtomicModel.put(t, tx, i, AtomicModel.operand(t)[0]);
            AtomicModel.put(t, tx, n + i, AtomicModel.compare(t)[0]);
        }
    }

    /** Null when every slot holds what the model says the operation left there, else the first that does not. */
    static String checkTarget(MemorySegment area) {
        for (int i = 0; i < CELLS.size(); i++) {
            Cell c = CELLS.get(i);
            AtomicDatatype t = c.type;
            double[] want = AtomicModel.after(t, c.op, AtomicModel.target(t)[0], AtomicModel.operand(t)[0],
                    AtomicModel.compare(t)[0]);
            double[] got = AtomicModel.get(t, area, i);
            if (!Arrays.equals(want, got)) {
                return "target after " + c.call() + ": " + Arrays.toString(got) + ", expected " + Arrays.toString(want);
            }
        }
        return null;
    }

    /** Null when every fetch and compare brought back the target's previous element, else the first that did not. */
    static String checkResults(MemorySegment rx) {
        for (int i = 0; i < CELLS.size(); i++) {
            Cell c = CELLS.get(i);
            if (c.kind == AtomicModel.WRITE) {
                continue;
            }
            double[] want = AtomicModel.target(c.type)[0];
            double[] got = AtomicModel.get(c.type, rx, i);
            if (!Arrays.equals(want, got)) {
                return "result of " + c.call() + ": " + Arrays.toString(got) + ", expected " + Arrays.toString(want);
            }
        }
        return null;
    }
}
