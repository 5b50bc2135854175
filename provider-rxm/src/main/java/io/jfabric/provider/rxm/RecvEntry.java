package io.jfabric.provider.rxm;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Endpoint;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.util.TagMatcher;

import java.lang.foreign.MemorySegment;

/**
 * A posted receive (libfabric's rxm_recv_entry; the matcher's {@link TagMatcher.Recv} points back at it
 * through its state), and the state of the message landing in it: SAR
 * reassembly progress or the rendezvous reads. It is the core context of those reads.
 */
final class RecvEntry implements CoreCompletion, DeferredWork {
    final MemorySegment[] iov = new MemorySegment[4];
    final MemoryRegion[] desc = new MemoryRegion[4];
    int count;
    long capacity;
    long srcAddr = Fabrics.ADDR_UNSPEC;
    long tag;
    long ignore;
    Object context;
    long opFlags;
    boolean tagged;
    boolean multi;
    /** A multi-receive slice: the buffer it was carved from. */
    RecvEntry parent;
    /** Its node in the matcher while it is posted (or, for FI_MULTI_RECV, until its buffer is released). */
    TagMatcher.Recv node;
    /** The pools it came from and goes back to. */
    RxmPools home;

    // ---- the message being received into it
    long msgSize;
    long received;
    long msgTag;
    long msgData;
    boolean msgHasData;
    long msgSrc;
    long msgId;
    RxmConnection<Endpoint> conn;
    ConnData cd;
    int generation;
    int error;
    /** Rendezvous: the request buffer (holds the sender's iovs) and reads outstanding. */
    RxBuf rndvReq;
    int pendingReads;
    int readIov;
    long readOffset;
    final MemoryRegion[] mrs = new MemoryRegion[4];
    int mrCount;
    boolean waitingWrDone;
    boolean orphan;

    RecvEntry nextActive;

    void clearMessage() {
        msgSize = 0;
        received = 0;
        msgTag = 0;
        msgData = 0;
        msgHasData = false;
        msgSrc = Fabrics.ADDR_NOTAVAIL;
        msgId = 0;
        conn = null;
        cd = null;
        error = 0;
        rndvReq = null;
        pendingReads = 0;
        readIov = 0;
        readOffset = 0;
        mrCount = 0;
        waitingWrDone = false;
        parent = null;
        node = null;
        nextActive = null;
    }

    /** Back to the pool: drops the references to the application's buffers, context and connection. */
    void forget() {
        for (int i = 0; i < count; i++) {
            iov[i] = null;
            desc[i] = null;
        }
        context = null;
        conn = null;
        cd = null;
        rndvReq = null;
        parent = null;
        node = null;
        nextActive = null;
    }

    /** The receive takes message {@code id} of {@code size} bytes arriving over {@code c} (SAR, rendezvous). */
    void beginMessage(long id, long size, RxmConnection<Endpoint> c, ConnData data) {
        msgId = id;
        msgSize = size;
        conn = c;
        cd = data;
        generation = data.generation;
    }

    /** What the completion reports of the message: its tag, remote CQ data and source. */
    void describeMessage(boolean isTagged, long t, long d, boolean withData, long src) {
        tagged = isTagged;
        msgTag = t;
        msgData = d;
        msgHasData = withData;
        msgSrc = src;
    }

    /** Copies {@code len} bytes of {@code src} at {@code srcOff} into this receive's buffers at {@code at}. */
    long copyIn(MemorySegment src, long srcOff, long at, long len) {
        return IovCursor.scatter(src, srcOff, iov, count, at, len);
    }

    @Override
    public void complete(RxmShared s, CqEntry e) {
        s.rndv.readDone(this, 0);
    }

    @Override
    public void fail(RxmShared s, CqErrEntry e) {
        s.rndv.readDone(this, e.err == 0 ? io.jfabric.Errno.EIO : e.err);
    }
}
