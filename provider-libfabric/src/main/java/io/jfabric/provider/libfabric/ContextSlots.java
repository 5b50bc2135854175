package io.jfabric.provider.libfabric;

import io.jfabric.provider.libfabric.ffi.generated.fi_context2;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A fixed pool of native {@code struct fi_context2} slots, one per outstanding operation. The native
 * call gets the slot's address as its {@code void *context} (providers with FI_CONTEXT/FI_CONTEXT2 mode
 * may scribble in it), and the completion's {@code op_context} leads back to the slot, and from there to
 * the Java context object, by arithmetic: no map and no allocation per operation.
 *
 * <p>Each slot has a state word. A post claims a free slot with one CAS; the completion frees it with a
 * release store, since only the holder of a used slot ever frees it. The search starts at a hint, the
 * slot freed last, which a request-reply loop takes again at the first probe. A free list (a Treiber
 * stack) needs a CAS at both ends; the second one cost about 6 ns per message in bench's
 * BridgeCallBench (173 against 167 ns).
 *
 * <p>fi_tagged(3): a receive with FI_PEEK|FI_CLAIM that finds a message leaves it reserved in the
 * operation's context (rxm keeps its receive buffer in {@code internal[0]}), and the FI_CLAIM receive must
 * pass that same context. So a slot posted with FI_PEEK|FI_CLAIM is not freed by its successful
 * completion: it goes to HELD, keeps its Java context, and the FI_CLAIM post takes it back.
 */
final class ContextSlots {
    static final long SLOT_SIZE = fi_context2.sizeof();
    private static final int FREE = 0;
    private static final int USED = 1;
    /** A FI_PEEK|FI_CLAIM found its message; the slot waits for the FI_CLAIM receive. */
    private static final int HELD = 2;
    private static final VarHandle STATE = MethodHandles.arrayElementVarHandle(int[].class);

    /** One segment per slot, made once, so posting passes a slot without allocating. */
    private final MemorySegment[] slotSegments;
    private final long base;
    private final Object[] contexts;
    private final boolean[] multiRecv;
    /** The slot's operation is a FI_PEEK|FI_CLAIM: its success holds the slot for the claim. */
    private final boolean[] peekClaim;
    /** The endpoint budget a transmit's slot was charged to (TxBudget), given back when the slot is freed. */
    private final TxBudget[] budgets;
    private final int[] state;
    /** Where the next claim looks first; racy by design, as any value is a valid place to start. */
    private int hint;

    ContextSlots(Arena arena, int count) {
        MemorySegment slots = arena.allocate(SLOT_SIZE * Math.max(count, 1), 64);
        base = slots.address();
        contexts = new Object[count];
        multiRecv = new boolean[count];
        peekClaim = new boolean[count];
        budgets = new TxBudget[count];
        state = new int[count];
        slotSegments = new MemorySegment[count];
        for (int i = 0; i < count; i++) {
            slotSegments[i] = slots.asSlice(i * SLOT_SIZE, SLOT_SIZE);
        }
    }

    /** Claims a slot for {@code context}; its index, or -1 when every slot is in use. */
    int acquire(Object context, boolean multi) {
        int n = state.length;
        int i = hint;
        for (int probes = 0; probes < n; probes++, i = i + 1 == n ? 0 : i + 1) {
            if ((int) STATE.getOpaque(state, i) == FREE && STATE.compareAndSet(state, i, FREE, USED)) {
                contexts[i] = context;
                multiRecv[i] = multi;
                hint = i + 1 == n ? 0 : i + 1;
                return i;
            }
        }
        return -1;
    }

    /** Charges slot {@code i}, just acquired for a transmit, to {@code budget}: freeing the slot gives it back. */
    void charge(int i, TxBudget budget) {
        budgets[i] = budget;
    }

    /** Marks slot {@code i}, just acquired, as a FI_PEEK|FI_CLAIM receive. */
    void markPeekClaim(int i) {
        peekClaim[i] = true;
    }

    /**
     * Takes back for the FI_CLAIM receive the slot that a FI_PEEK|FI_CLAIM with {@code context} left
     * held; its index, or -1 if no such peek found a message.
     */
    int reclaim(Object context) {
        for (int i = 0; i < contexts.length; i++) {
            if (contexts[i] == context && STATE.compareAndSet(state, i, HELD, USED)) {
                return i;
            }
        }
        return -1;
    }

    /** Puts a reclaimed slot back to HELD: its FI_CLAIM receive was refused, so the message stays reserved. */
    void hold(int i) {
        STATE.setRelease(state, i, HELD);
    }

    /** The native fi_context2 of slot {@code i}, to pass as the operation's context. */
    MemorySegment segment(int i) {
        return slotSegments[i];
    }

    /** The address of slot {@code i}'s fi_context2, as the data calls take it. */
    long address(int i) {
        return base + i * SLOT_SIZE;
    }

    /** The slot index behind a native context address, or -1 if it is not one of ours. */
    int indexOf(long address) {
        long off = address - base;
        if (off < 0 || off >= SLOT_SIZE * contexts.length || off % SLOT_SIZE != 0) {
            return -1;
        }
        return (int) (off / SLOT_SIZE);
    }

    /**
     * The Java context of the completion whose {@code op_context} is {@code address}; frees the slot
     * unless it belongs to a multi-receive buffer that is still in use ({@code lastUse} false).
     */
    Object complete(long address, boolean lastUse) {
        int i = indexOf(address);
        if (i < 0) {
            return null;
        }
        Object c = contexts[i];
        if (peekClaim[i]) {
            peekClaim[i] = false;
            hold(i);
        } else if (!multiRecv[i] || lastUse) {
            release(i);
        }
        return c;
    }

    /** The Java context of the failed operation whose {@code op_context} is {@code address}; frees the slot. */
    Object fail(long address) {
        int i = indexOf(address);
        if (i < 0) {
            return null;
        }
        Object c = contexts[i];
        release(i);
        return c;
    }

    /** Returns slot {@code i}: its operation was never posted, or has completed. */
    void release(int i) {
        TxBudget b = budgets[i];
        if (b != null) {
            budgets[i] = null;
            b.give();
        }
        contexts[i] = null;
        multiRecv[i] = false;
        peekClaim[i] = false;
        STATE.setRelease(state, i, FREE);
        hint = i;
    }

    /** The index of an in-use slot holding {@code context} (identity), or -1; for fi_cancel. */
    int find(Object context) {
        if (context != null) {
            for (int i = 0; i < contexts.length; i++) {
                if (contexts[i] == context) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** How many slots are free (a walk; for tests and state dumps only). */
    int free() {
        int n = 0;
        for (int i = 0; i < state.length; i++) {
            if ((int) STATE.getVolatile(state, i) == FREE) {
                n++;
            }
        }
        return n;
    }

    int capacity() {
        return contexts.length;
    }
}
