package io.jfabric.provider.rxm;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Endpoint;
import io.jfabric.provider.rxm.wire.RndvHeader;
import io.jfabric.provider.rxm.wire.RxmPacket;

import java.lang.foreign.MemorySegment;

/**
 * A transmit bounce buffer: the 64-byte rxm header followed by up to buffer_size bytes of payload, in
 * native memory. Carries eager packets, SAR segments, rendezvous requests and control packets. Its
 * fixed-size views are made once so the data path slices nothing for them.
 */
final class TxBuf implements CoreCompletion, DeferredWork {
    final MemorySegment mem;
    /** Its core registration when the core needs FI_MR_LOCAL (the desc of every core post), else null. */
    io.jfabric.MemoryRegion mr;
    final MemorySegment hdr;
    final MemorySegment rndvPkt;
    final MemorySegment payload;
    /** header + application iovs, for direct send. */
    final MemorySegment[] directIov = new MemorySegment[5];
    TxOp op;
    /** Control packet owner on the receive side (rd_done / wr_data for a RecvEntry), else null. */
    RecvEntry recv;
    RxmConnection<Endpoint> conn;
    ConnData cd;
    int generation;
    /** What to post when deferred: the packet view and the iov count (0 = single segment). */
    MemorySegment pending;
    int directCount;
    boolean orphan;
    /** The last header-plus-payload view handed out, kept so a stream of equal sizes slices once. */
    private MemorySegment sized;
    /**
     * Views of other recent sizes: atomics mix a few packet sizes (request, response, per datatype and kind)
     * through the same buffers, and each would otherwise slice anew.
     */
    private final MemorySegment[] recent = new MemorySegment[4];
    private int nextRecent;

    /** A buffer over {@code mem} ({@link #size} bytes), covered by {@code mr} when the core needs one. */
    TxBuf(MemorySegment mem, io.jfabric.MemoryRegion mr) {
        this.mem = mem;
        this.mr = mr;
        hdr = mem.asSlice(0, RxmPacket.SIZE);
        rndvPkt = mem.asSlice(0, RxmPacket.SIZE + RndvHeader.SIZE);
        payload = mem.asSlice(RxmPacket.SIZE);
    }

    /** Back to the pool: drops what the last packet referred to. */
    void forget() {
        op = null;
        recv = null;
        conn = null;
        cd = null;
        pending = null;
        java.util.Arrays.fill(directIov, null);
    }

    /** Bytes of one transmit buffer for {@code bufferSize}. */
    static long size(long bufferSize) {
        return RxmPacket.SIZE + Math.max(bufferSize, RndvHeader.SIZE);
    }

    /** The header plus {@code payloadLen} bytes; a repeated length reuses its view (no allocation per inject). */
    MemorySegment packet(long payloadLen) {
        long n = RxmPacket.SIZE + payloadLen;
        if (n == mem.byteSize()) {
            return mem;
        }
        MemorySegment s = sized;
        if (s != null && s.byteSize() == n) {
            return s;
        }
        for (MemorySegment r : recent) {
            if (r != null && r.byteSize() == n) {
                sized = r;
                return r;
            }
        }
        s = mem.asSlice(0, n);
        recent[nextRecent] = s;
        nextRecent = (nextRecent + 1) & (recent.length - 1);
        sized = s;
        return s;
    }

    @Override
    public void complete(RxmShared s, CqEntry e) {
        s.transmit.bufDone(this, 0);
    }

    @Override
    public void fail(RxmShared s, CqErrEntry e) {
        s.transmit.bufDone(this, e.err == 0 ? io.jfabric.Errno.EIO : e.err);
    }
}
