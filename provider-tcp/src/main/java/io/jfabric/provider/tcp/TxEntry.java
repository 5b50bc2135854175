package io.jfabric.provider.tcp;

import io.jfabric.provider.tcp.wire.DataHeader;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A pooled transmit operation: its wire header (with room for inject data), the buffers a gathering write
 * sends, and what to report when it completes. Mirrors libfabric tcp's {@code struct tcpx_xfer_entry} on the
 * send side. Entries are preallocated per endpoint and recycled, so posting allocates nothing.
 */
final class TxEntry {
    static final int KIND_SEND = 0;
    static final int KIND_WRITE = 1;
    static final int KIND_READ = 2;
    /** Provider-generated frames (ACK, read response): no completion. */
    static final int KIND_INTERNAL = 3;

    /** Largest payload copied into the header buffer instead of sent from the caller's memory. */
    static final int INLINE_LIMIT = TcpParams.INJECT_SIZE;

    TxEntry next;
    /** Entries whose frames follow this one's in the connection's staging buffer, sent with it (TcpTxQueue). */
    TxEntry batched;
    int kind;
    Object context;
    long cqFlags;
    boolean completion;
    /** A CQ slot was reserved for this operation's completion. */
    boolean reserved;
    boolean needAck;
    long len;
    /** An RMA's first target address and key: what the initiator can tell when the target drops the connection. */
    long rmaAddr;
    long rmaKey;

    final MemorySegment hdr;
    final ByteBuffer hdrView;
    final ByteBuffer[] bufs = new ByteBuffer[1 + DataHeader.IOV_LIMIT];
    final SegmentView[] views = new SegmentView[DataHeader.IOV_LIMIT];
    int bufCount;
    /** The first buffer not yet fully written. */
    int bufIndex;
    /** Native address of each buffer's position, for a gathering writev (TcpConnection#write). */
    final long[] addrs = new long[1 + DataHeader.IOV_LIMIT];
    long remaining;

    /** Local buffers a read response scatters into. */
    final MemorySegment[] readIov = new MemorySegment[DataHeader.IOV_LIMIT];
    int readIovCount;

    TxEntry(ViewCache viewCache) {
        // a plain direct buffer has no memory session, so NIO does no per-call session bookkeeping on it
        hdrView = ByteBuffer.allocateDirect(DataHeader.MAX_HDR_SIZE + INLINE_LIMIT);
        hdr = MemorySegment.ofBuffer(hdrView);
        for (int i = 0; i < views.length; i++) {
            views[i] = new SegmentView(viewCache);
        }
    }

    /**
     * Puts the header ({@code hl} bytes, already encoded) and the payload in {@link #bufs}: small payloads are
     * copied after the header (one buffer, the caller's memory reusable at once), larger ones go zero-copy.
     */
    void attachPayload(MemorySegment[] iov, int count, int hl, long total) {
        bufs[0] = hdrView;
        if (total <= INLINE_LIMIT) {
            long off = hl;
            for (int i = 0; i < count; i++) {
                MemorySegment s = iov[i];
                MemorySegment.copy(s, 0, hdr, off, s.byteSize());
                off += s.byteSize();
            }
            hdrView.clear().limit((int) off);
            bufCount = 1;
        } else {
            hdrView.clear().limit(hl);
            int n = 1;
            for (int i = 0; i < count; i++) {
                MemorySegment s = iov[i];
                if (s.byteSize() > 0) {
                    bufs[n++] = views[i].of(s);
                }
            }
            bufCount = n;
        }
        remaining = hl + total;
    }

    /** Makes this a provider frame of {@code hl} header bytes already encoded in {@link #hdr} (ACK, READY). */
    void headerOnly(int hl) {
        kind = KIND_INTERNAL;
        hdrView.clear().limit(hl);
        bufs[0] = hdrView;
        bufCount = 1;
        remaining = hl;
    }

    void reset() {
        next = null;
        batched = null;
        reserved = false;
        context = null;
        for (int i = 0; i < bufs.length; i++) {
            bufs[i] = null;
        }
        for (int i = 0; i < readIovCount; i++) {
            readIov[i] = null;
        }
        readIovCount = 0;
        bufCount = 0;
        bufIndex = 0;
        remaining = 0;
        needAck = false;
        completion = false;
    }
}
