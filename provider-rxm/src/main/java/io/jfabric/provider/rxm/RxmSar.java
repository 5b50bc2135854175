package io.jfabric.provider.rxm;

import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.provider.rxm.wire.RxmPacket;
import io.jfabric.util.FabricLog;

import java.lang.foreign.MemorySegment;

/**
 * Segmentation and reassembly (libfabric's rxm_send_sar and rxm_handle_seg): a message above eager_limit
 * and up to sar_limit travels as buffer_size segments, first, middle and last, each naming the message by
 * the sender's msg_id. Segments the core refuses wait in the connection's deferred queue. The receiver
 * copies each segment into the matched receive at its offset, or keeps the segments of an unexpected
 * message until a receive claims them.
 */
final class RxmSar {
    private static final System.Logger LOG = FabricLog.logger("ofi_rxm");

    private final RxmShared s;

    RxmSar(RxmShared s) {
        this.s = s;
    }

    // ---- send side

    int send(TxOp op, RxmConnection<Endpoint> c, ConnData cd) {
        op.segCount = s.selector.segments(op.length);
        op.nextSeg = 0;
        postSegments(op);
        if (op.nextSeg == 0) {
            s.pools.releaseTxOp(op);
            return -Errno.EAGAIN;
        }
        cd.link(op);
        if (op.nextSeg < op.segCount) {
            s.cm.defer(c, cd, op);
        }
        return 0;
    }

    /** A deferred send's next try: false while segments are left and the core still says EAGAIN. */
    boolean retry(TxOp op) {
        postSegments(op);
        return op.state == TxOp.ORPHAN || op.error != 0 || op.nextSeg >= op.segCount;
    }

    /** Builds and posts SAR segments from {@code op.nextSeg} until done or the core says EAGAIN. */
    private void postSegments(TxOp op) {
        RxmConnection<Endpoint> c = op.conn;
        Endpoint core = c.ep();
        if (op.state == TxOp.ORPHAN || core == null || op.generation != op.cd.generation) {
            return;
        }
        long bufferSize = s.bufferSize;
        while (op.nextSeg < op.segCount) {
            long offset = op.nextSeg * bufferSize;
            long segLen = Math.min(bufferSize, op.length - offset);
            int segType = op.nextSeg == 0 ? RxmPacket.SEG_FIRST
                    : op.nextSeg == op.segCount - 1 ? RxmPacket.SEG_LAST : RxmPacket.SEG_MIDDLE;
            TxBuf tb = s.pools.acquireTxBuf();
            RxmPacket.write(tb.hdr, RxmPacket.CTRL_SEG, c.remoteIndex(), op.index, op.op, op.pktFlags, op.length,
                    op.data, op.tag);
            RxmPacket.setSegment(tb.hdr, (int) segLen, (int) op.nextSeg, segType, offset);
            IovCursor.gather(op.iov, op.iovCount, offset, tb.payload, 0, segLen);
            tb.pending = tb.packet(segLen);
            tb.conn = c;
            tb.cd = op.cd;
            tb.generation = op.generation;
            int rc = core.send(tb.pending, tb.mr, 0, tb);
            if (rc != 0) {
                s.pools.releaseTxBuf(tb);
                if (rc != -Errno.EAGAIN) {
                    op.error = -rc;
                    if (op.pending == 0 && op.nextSeg > 0) {
                        s.transmit.finish(op);
                    }
                }
                return;
            }
            tb.op = op;
            op.pending++;
            op.nextSeg++;
        }
    }

    // ---- receive side

    /** A segment arrived in {@code rx}. Returns whether the buffer is kept (a segment of an unexpected message). */
    boolean arrived(RxBuf rx, RxmConnection<Endpoint> c, ConnData cd) {
        MemorySegment p = rx.mem;
        long msgId = RxmPacket.msgId(p);
        int segType = RxmPacket.segType(p);
        long segLen = Math.min(RxmPacket.segSize(p), rx.len - RxmPacket.SIZE);
        if (segType == RxmPacket.SEG_FIRST) {
            return first(rx, c, cd, msgId, segLen);
        }
        boolean last = segType == RxmPacket.SEG_LAST;
        RecvEntry prevE = null;
        for (RecvEntry t = cd.activeRecv; t != null; prevE = t, t = t.nextActive) {
            if (t.msgId == msgId && t.rndvReq == null) {
                if (t.received < t.capacity) {
                    t.copyIn(p, RxmPacket.SIZE, t.received, Math.min(segLen, t.capacity - t.received));
                }
                t.received += segLen;
                if (last) {
                    if (prevE == null) {
                        cd.activeRecv = t.nextActive;
                    } else {
                        prevE.nextActive = t.nextActive;
                    }
                    s.recv.complete(t, t.msgSize, Math.min(t.received, t.capacity), t.msgTag, t.msgData,
                            t.msgHasData, t.msgSrc, t.conn);
                }
                return false;
            }
        }
        Unexpected prevU = null;
        for (Unexpected u = cd.activeUnexp; u != null; prevU = u, u = u.nextActive) {
            if (u.msgId == msgId) {
                rx.next = null;
                if (u.segTail == null) {
                    u.segHead = rx;
                } else {
                    u.segTail.next = rx;
                }
                u.segTail = rx;
                u.buffers++;
                s.rxBuffers.unexpBuffers++;
                if (last) {
                    u.complete = true;
                    if (prevU == null) {
                        cd.activeUnexp = u.nextActive;
                    } else {
                        prevU.nextActive = u.nextActive;
                    }
                    u.nextActive = null;
                }
                return true;
            }
        }
        LOG.log(System.Logger.Level.WARNING, "dropping a SAR segment of unknown message {0} from {1}", msgId,
                c.peer());
        return false;
    }

    /** The first segment: it carries the message's size, tag and data, and is matched like an eager message. */
    private boolean first(RxBuf rx, RxmConnection<Endpoint> c, ConnData cd, long msgId, long segLen) {
        MemorySegment p = rx.mem;
        boolean tagged = RxmPacket.op(p) == RxmPacket.OP_TAGGED;
        long tag = RxmPacket.tag(p);
        long data = RxmPacket.data(p);
        boolean hasData = (RxmPacket.flags(p) & RxmPacket.FLAG_REMOTE_CQ_DATA) != 0;
        long size = RxmPacket.size(p);
        long src = s.cm.srcOf(c);
        RecvEntry t = s.recv.match(tagged, src, tag, size);
        if (t != null) {
            begin(t, c, cd, msgId, size, tagged, tag, data, hasData, src);
            t.copyIn(p, RxmPacket.SIZE, 0, Math.min(segLen, t.capacity));
            t.received = segLen;
            return false;
        }
        Unexpected u = s.recv.queueUnexpected(Unexpected.SAR, rx, c, cd, RxmPacket.SIZE, segLen, size, tagged, tag,
                data, hasData, src);
        u.msgId = msgId;
        u.nextActive = cd.activeUnexp;
        cd.activeUnexp = u;
        return true;
    }

    /** The receive {@code t} takes the message {@code msgId}: later segments find it on the connection. */
    private static void begin(RecvEntry t, RxmConnection<Endpoint> c, ConnData cd, long msgId, long size,
                              boolean tagged, long tag, long data, boolean hasData, long src) {
        t.describeMessage(tagged, tag, data, hasData, src);
        t.beginMessage(msgId, size, c, cd);
        t.nextActive = cd.activeRecv;
        cd.activeRecv = t;
    }

    /** A receive meets a SAR message that arrived (in whole or in part) first. */
    void deliverUnexpected(RecvEntry t, Unexpected u) {
        long at = copyPart(t, u.first.mem, u.offset, 0, u.firstLen);
        for (RxBuf seg = u.segHead; seg != null; seg = seg.next) {
            long segLen = Math.min(RxmPacket.segSize(seg.mem), seg.len - RxmPacket.SIZE);
            at += copyPart(t, seg.mem, RxmPacket.SIZE, at, segLen);
        }
        if (u.complete) {
            s.recv.complete(t, u.size, Math.min(at, t.capacity), u.tag, u.data, u.hasData, u.src, u.conn);
        } else if (u.generation != u.cd.generation) {
            t.msgTag = u.tag;
            s.recv.fail(t, Errno.ECONNRESET, true);
        } else {
            ConnData cd = u.cd;
            RxmRecv.unlinkActive(cd, u);
            begin(t, u.conn, cd, u.msgId, u.size, u.tagged, u.tag, u.data, u.hasData, u.src);
            t.received = at;
        }
        s.recv.releaseUnexpected(u);
    }

    private static long copyPart(RecvEntry t, MemorySegment src, long srcOff, long at, long len) {
        if (at < t.capacity) {
            t.copyIn(src, srcOff, at, Math.min(len, t.capacity - at));
        }
        return len;
    }
}
