package io.jfabric.provider.shm;

import io.jfabric.util.Cma;
import io.jfabric.provider.shm.ffi.Futex;
import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.EndpointBindings;
import io.jfabric.util.FabricLog;
import io.jfabric.util.UtilCompletionQueue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * What every part of one shm endpoint shares: its own region and ring, its sender id and protocol
 * sizes, its bindings and its syscall helpers. Fixed at construction, except the AV and the CQs, which
 * bind and enable set once, before the data path may run.
 */
final class ShmEndpointState {
    static final System.Logger LOG = FabricLog.logger("shm");
    /** How often operations waiting on a peer look at whether it is still alive (FI_SHM_LIVENESS_INTERVAL_MS). */
    static final long LIVENESS_INTERVAL =
            TimeUnit.MILLISECONDS.toNanos(Math.max(1, ShmParams.LIVENESS_INTERVAL_MS.get()));
    /** Ring payload lengths of the fixed-size commands, padded to whole cache lines (Wire.recordPayload). */
    static final int COMMAND_RECORD = Wire.recordPayload(Wire.HEADER);
    static final int RMA_RECORD = Wire.recordPayload(Wire.RMA_HEADER);

    final ShmDomain domain;
    final ShmRegion region;
    final MpscRing ring;
    final Doorbell doorbell;
    final Futex futex = new Futex();
    final Cma cma = new Cma();
    final Arena arena = Arena.ofShared();
    final long senderId;
    final String address;
    final int inlineSize;
    final int slotSize;
    final EndpointBindings bindings = new EndpointBindings("shm endpoint");

    /** Set by bind. */
    ShmAv av;
    /** Set by enable, from the bindings, so the data path reads one field. */
    UtilCompletionQueue txCq;
    UtilCompletionQueue rxCq;
    private long corruptDropped;

    ShmEndpointState(ShmDomain domain, ShmRegion region, long senderId, String address) {
        this.domain = domain;
        this.region = region;
        this.ring = region.ring();
        this.doorbell = new Doorbell(region);
        this.senderId = senderId;
        this.address = address;
        this.inlineSize = domain.inlineSize;
        this.slotSize = domain.layout.bounceSlotSize();
    }

    /** Writes the fixed command header ({@link Wire}) of a command this endpoint sends. */
    void putHeader(MemorySegment s, long at, long tag, long data, int wflags, long len, long opId, long address) {
        Wire.putLong(s, at + Wire.SENDER, senderId);
        Wire.putLong(s, at + Wire.TAG, tag);
        Wire.putLong(s, at + Wire.DATA, data);
        Wire.putInt(s, at + Wire.FLAGS, wflags);
        Wire.putInt(s, at + Wire.STATUS, 0);
        Wire.putLong(s, at + Wire.LENGTH, len);
        Wire.putLong(s, at + Wire.OP_ID, opId);
        Wire.putLong(s, at + Wire.ADDRESS, address);
    }

    /** Counts and logs a command that fails validation; returns true (the record is consumed). */
    boolean dropCorrupt(int type, int length) {
        corruptDropped++;
        LOG.log(System.Logger.Level.WARNING, "shm endpoint {0}: dropped a corrupt command (type {1}, length {2})",
                address, type, length);
        return true;
    }

    /** A ring record header failed validation (counted with the corrupt commands). */
    void corruptRecord(long position, int length) {
        corruptDropped++;
        LOG.log(System.Logger.Level.WARNING, "shm endpoint {0}: dropped a corrupt ring record at position {1} "
                + "(length {2})", address, position, length);
    }

    long corruptDropped() {
        return corruptDropped;
    }

    void lock() {
        if (domain.lock != null) {
            domain.lock.lock();
        }
    }

    void unlock() {
        if (domain.lock != null) {
            domain.lock.unlock();
        }
    }
}
