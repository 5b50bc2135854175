package io.jfabric.provider.tcp;

import io.jfabric.provider.tcp.wire.DataHeader;

import java.lang.foreign.MemorySegment;

/**
 * A pooled posted receive: up to four caller buffers and the context to report. Mirrors the receive side of
 * libfabric tcp's {@code struct tcpx_xfer_entry}.
 */
final class RxEntry {
    RxEntry next;
    Object context;
    boolean completion;
    /** A CQ slot was reserved for this operation's completion. */
    boolean reserved;
    long capacity;
    final MemorySegment[] iov = new MemorySegment[DataHeader.IOV_LIMIT];
    final SegmentView[] views = new SegmentView[DataHeader.IOV_LIMIT];
    int iovCount;
    /** Posted with trecv: takes only TCPX_TAGGED frames whose tag satisfies tag/ignore (see TcpRecvQueue). */
    boolean tagged;
    long tag;
    long ignore;
    /** Tag of the frame that filled this entry (reported in the completion). */
    long rxTag;

    RxEntry(ViewCache viewCache) {
        for (int i = 0; i < views.length; i++) {
            views[i] = new SegmentView(viewCache);
        }
    }

    void reset() {
        next = null;
        reserved = false;
        context = null;
        for (int i = 0; i < iovCount; i++) {
            iov[i] = null;
        }
        iovCount = 0;
        capacity = 0;
        tagged = false;
        tag = ignore = rxTag = 0;
    }
}
