package io.jfabric.provider.rxm;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Endpoint;
import io.jfabric.provider.rxm.wire.RndvHeader;
import io.jfabric.provider.rxm.wire.RxmPacket;

import java.lang.foreign.MemorySegment;

/**
 * A receive bounce buffer posted on one connection's core endpoint: room for the rxm header plus the
 * eager limit. Tagged ones are posted with the core's trecv (match-anything) to take the headerless
 * tagged messages of libfabric 1.13-1.17 (dyn_rbuf); the others take rxm packets. An unexpected message
 * keeps its buffer until a receive claims it.
 */
final class RxBuf implements CoreCompletion {
    final MemorySegment mem;
    /** Its core registration when the core needs FI_MR_LOCAL (the desc of every core post), else null. */
    io.jfabric.MemoryRegion mr;
    final boolean tagged;
    RxmConnection<Endpoint> conn;
    ConnData cd;
    int generation;
    /** The core endpoint it is posted on; a completion from another one is stale. */
    Endpoint coreEp;
    /** Bytes received (from the core completion). */
    long len;
    long coreFlags;
    long coreTag;
    long coreData;
    boolean orphan;
    /** Kept past its completion and counted in its connection's held buffers (see RxmRxBuffers#hold). */
    boolean held;
    RxBuf next;

    /** The rendezvous header view after the rxm header, made once (null when the buffer is too small for one). */
    private final MemorySegment rndvHdr;

    /** A buffer over {@code mem} (rxm header plus eager limit), covered by {@code mr} when the core needs one. */
    RxBuf(MemorySegment mem, io.jfabric.MemoryRegion mr, boolean tagged) {
        this.mem = mem;
        this.mr = mr;
        this.tagged = tagged;
        long eagerLimit = mem.byteSize() - RxmPacket.SIZE;
        this.rndvHdr = eagerLimit >= RndvHeader.SIZE ? mem.asSlice(RxmPacket.SIZE, RndvHeader.SIZE) : null;
    }

    /** Bytes of one receive buffer for {@code eagerLimit}. */
    static long size(long eagerLimit) {
        return RxmPacket.SIZE + eagerLimit;
    }

    /** The rendezvous header of a rendezvous request held in this buffer; slices nothing per message. */
    MemorySegment rndvHeader() {
        return rndvHdr != null ? rndvHdr : mem.asSlice(RxmPacket.SIZE, Math.min(RndvHeader.SIZE, mem.byteSize() - RxmPacket.SIZE));
    }

    @Override
    public void complete(RxmShared s, CqEntry e) {
        len = e.len;
        coreFlags = e.flags;
        coreTag = e.tag;
        coreData = e.data;
        s.progress.received(this);
    }

    @Override
    public void fail(RxmShared s, CqErrEntry e) {
        if (s.rxBuffers.srx != null && s.rxBuffers.srx.owns(this) && !orphan) {
            s.rxBuffers.srx.consumed(); // the shared context holds one fewer
        }
        orphan = true; // its core endpoint was closed or broke: the buffer is dropped
    }
}
