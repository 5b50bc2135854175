package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.RegionLayout;

import io.jfabric.provider.shm.ffi.Futex;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The wake-up word of a region: its owner sleeps on it (futex) when it has nothing to do, and a
 * producer that has just committed a record into the owner's ring wakes it. Producers pay one
 * fence and one load when nobody sleeps, so busy-polling owners lose nothing.
 *
 * <p>Protocol (a Dekker handshake on volatile accesses): the owner {@linkplain #arm arms} (volatile
 * store of 1), checks whether its ring's tail moved (volatile load), then {@linkplain #await sleeps}
 * while the word is 1. A producer has moved that tail with a CAS (volatile) before it writes its record;
 * after committing it reads the word (volatile load) and, if it sees 1, swaps it to 0 and wakes. The
 * volatile accesses are totally ordered, so either the owner sees the moved tail (and does not sleep)
 * or the producer sees the armed word. No fence of its own is needed on the producer side: the CAS
 * already is one (on x86 the load after it is a plain load).
 */
public final class Doorbell {

    private static final VarHandle INT = ShmRegion.intHandle();
    private static final long OFFSET = RegionLayout.DOORBELL_OFFSET;

    private final MemorySegment segment;
    private final long address;

    public Doorbell(ShmRegion region) {
        this.segment = region.segment();
        this.address = region.doorbellAddress();
    }

    /** Owner: announce that it is about to sleep. Re-check for work after this and before {@link #await}. */
    public void arm() {
        INT.setVolatile(segment, OFFSET, 1);
    }

    /** Owner: no longer sleeping. */
    public void disarm() {
        INT.setOpaque(segment, OFFSET, 0);
    }

    /**
     * Owner: sleep until rung or {@code timeoutNanos} pass (negative: no limit).
     *
     * @return whether a ring ended the sleep (false: rung before it, or the time ran out, or a signal came)
     */
    public boolean await(Futex futex, long timeoutNanos) {
        return futex.await(address, 1, timeoutNanos);
    }

    /** Producer: wake the owner if it sleeps. Call after committing a record claimed with {@link MpscRing#tryClaim}. */
    public void ring() {
        if ((int) INT.getVolatile(segment, OFFSET) != 0 && INT.compareAndSet(segment, OFFSET, 1, 0)) {
            Futex.wake(address, Integer.MAX_VALUE);
        }
    }

    /** The word's address in this process's mapping (for a futex wait on several doorbells). */
    public long address() {
        return address;
    }

    public boolean armed() {
        return (int) INT.getVolatile(segment, OFFSET) != 0;
    }
}
