package io.jfabric.provider.rxm;

import io.jfabric.Endpoint;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.TaggedMsg;
import io.jfabric.provider.rxm.wire.RxmPacket;

import java.lang.foreign.MemorySegment;

/**
 * The eager protocol (libfabric's rxm_send_eager and rxm_handle_eager): a message up to eager_limit
 * travels whole in one packet, its header and payload copied into a bounce buffer, or the header in one and
 * the application's buffers sent directly from where they are (direct send). With dyn_rbuf, a small tagged
 * message travels as a headerless core tagged message. The receiver copies the payload into the matched
 * receive, or keeps the buffer as an unexpected message until one is posted.
 */
final class RxmEager {
    private final RxmShared s;
    /** The core msg of a headerless tagged send of several buffers with remote CQ data. */
    private final TaggedMsg scratchTaggedMsg = new TaggedMsg(4);
    /** The core msg of a bounce packet with FI_MORE. */
    private final Msg scratchMsg = new Msg(1);
    /** The core msg of a direct send with FI_MORE: its iov is the TxBuf's, and no descriptors, as sendv's. */
    private final Msg directMsg = new Msg(0);

    RxmEager(RxmShared s) {
        this.s = s;
        directMsg.desc = null;
    }

    // ---- send side

    /** dyn_rbuf: a small tagged message as a core tagged message, without rxm's header. */
    int sendRawTagged(TxOp op, Endpoint core, boolean inject, boolean more) {
        boolean hasData = op.pktFlags != 0;
        int rc;
        if (inject && !op.report) {
            if (more || op.iovCount != 1) {
                rc = injectTagged(core, op, hasData, more ? OpFlags.MORE : 0, null);
            } else {
                rc = hasData ? core.tinjectdata(op.iov[0], op.data, 0, op.tag) : core.tinject(op.iov[0], 0, op.tag);
            }
            s.pools.releaseTxOp(op);
            return rc;
        }
        if (inject) {
            // fi_tsendmsg with FI_INJECT that reports: the core copies the buffer now and completes to the op
            rc = injectTagged(core, op, hasData, OpFlags.COMPLETION | (more ? OpFlags.MORE : 0), op);
        } else if (more) {
            rc = tsendmsg(core, op, OpFlags.COMPLETION | OpFlags.MORE | (hasData ? OpFlags.REMOTE_CQ_DATA : 0), op);
        } else if (op.iovCount == 1 && !hasData) {
            rc = core.tsend(op.iov[0], null, 0, op.tag, op);
        } else if (op.iovCount == 1) {
            rc = core.tsenddata(op.iov[0], null, op.data, 0, op.tag, op);
        } else if (op.iovCount == 0) {
            rc = hasData ? core.tsenddata(MemorySegment.NULL, null, op.data, 0, op.tag, op)
                    : core.tsend(MemorySegment.NULL, null, 0, op.tag, op);
        } else if (!hasData) {
            rc = core.tsendv(op.iov, null, op.iovCount, 0, op.tag, op);
        } else {
            rc = tsendmsg(core, op, OpFlags.REMOTE_CQ_DATA, op);
        }
        if (rc != 0) {
            s.pools.releaseTxOp(op);
            return rc;
        }
        op.pending = 1;
        op.cd.link(op);
        return 0;
    }

    /**
     * A raw tagged inject through fi_tsendmsg, for the flags the inject calls cannot carry (FI_MORE, a
     * completion to {@code context}).
     */
    private int injectTagged(Endpoint core, TxOp op, boolean hasData, long flags, Object context) {
        return tsendmsg(core, op, OpFlags.INJECT | flags | (hasData ? OpFlags.REMOTE_CQ_DATA : 0), context);
    }

    /** The op's buffers, tag and data as one core fi_tsendmsg with {@code flags}, completing to {@code context}. */
    private int tsendmsg(Endpoint core, TxOp op, long flags, Object context) {
        TaggedMsg m = scratchTaggedMsg;
        for (int i = 0; i < op.iovCount; i++) {
            m.iov[i] = op.iov[i];
            m.desc[i] = null;
        }
        m.iovCount = op.iovCount;
        m.addr = 0;
        m.context = context;
        m.data = op.data;
        m.tag = op.tag;
        int rc = core.tsendmsg(m, flags);
        m.context = null;
        return rc;
    }

    /** {@code tb}'s bounce-buffer packet through the core's fi_sendmsg, which carries FI_MORE. */
    private int sendmsg(Endpoint core, TxBuf tb, TxBuf context, long flags) {
        scratchMsg.set(tb.pending, tb.mr, 0, context);
        int rc = core.sendmsg(scratchMsg, flags);
        scratchMsg.context = null;
        return rc;
    }

    /** {@code tb}'s header and the application's buffers (a direct send) through fi_sendmsg with FI_MORE. */
    private int sendvMore(Endpoint core, TxBuf tb) {
        Msg m = directMsg;
        m.iov = tb.directIov;
        m.iovCount = tb.directCount;
        m.context = tb;
        int rc = core.sendmsg(m, OpFlags.COMPLETION | OpFlags.MORE);
        m.context = null;
        return rc;
    }

    /** rxm_send_eager: header and payload in one packet. */
    int send(TxOp op, RxmConnection<Endpoint> c, ConnData cd, boolean inject, boolean more) {
        TxBuf tb = s.pools.acquireTxBuf();
        RxmPacket.write(tb.hdr, RxmPacket.CTRL_EAGER, c.remoteIndex(), op.index, op.op, op.pktFlags, op.length,
                op.data, op.tag);
        tb.conn = c;
        tb.cd = cd;
        tb.generation = cd.generation;
        Endpoint core = c.ep();
        int rc;
        if (inject || !s.directSend || op.iovCount + 1 > s.coreIovLimit) {
            IovCursor.gather(op.iov, op.iovCount, 0, tb.payload, 0, op.length);
            tb.pending = tb.packet(op.length);
            // an inject that reports (fi_sendmsg with FI_INJECT) goes as a send from the bounce buffer it was
            // copied into: its completion comes with the core's
            if (inject && !op.report && RxmPacket.SIZE + op.length <= s.coreInjectSize) {
                rc = more ? sendmsg(core, tb, null, OpFlags.INJECT | OpFlags.MORE)
                        : core.inject(tb.pending, 0);
                s.pools.releaseTxBuf(tb);
                s.pools.releaseTxOp(op);
                return rc;
            }
            rc = more ? sendmsg(core, tb, tb, OpFlags.COMPLETION | OpFlags.MORE)
                    : core.send(tb.pending, tb.mr, 0, tb);
        } else {
            tb.directIov[0] = tb.hdr;
            for (int i = 0; i < op.iovCount; i++) {
                tb.directIov[i + 1] = op.iov[i];
            }
            tb.directCount = op.iovCount + 1;
            rc = more ? sendvMore(core, tb) : core.sendv(tb.directIov, null, tb.directCount, 0, tb);
        }
        if (rc != 0) {
            s.pools.releaseTxBuf(tb);
            s.pools.releaseTxOp(op);
            return rc;
        }
        tb.op = op;
        op.pending = 1;
        cd.link(op);
        return 0;
    }

    // ---- receive side

    /**
     * An eager message arrived in {@code rx} ({@code len} bytes at {@code off}): matched against the posted
     * receives, else queued as unexpected. Returns whether the buffer is kept.
     */
    boolean arrived(RxBuf rx, RxmConnection<Endpoint> c, ConnData cd, long off, long len, boolean tagged, long tag,
                    long data, boolean hasData) {
        long src = s.cm.srcOf(c);
        RecvEntry t = s.recv.match(tagged, src, tag, len);
        if (t != null) {
            receive(t, rx.mem, off, len, len, tag, data, hasData, src, c);
            return false;
        }
        s.recv.queueUnexpected(Unexpected.EAGER, rx, c, cd, off, len, len, tagged, tag, data, hasData, src);
        return true;
    }

    /** An eager message met its receive on arrival: copied in (as much as fits) and completed. */
    void receive(RecvEntry t, MemorySegment src, long off, long len, long size, long tag, long data,
                 boolean hasData, long srcAddr, RxmConnection<Endpoint> from) {
        long n = t.copyIn(src, off, 0, Math.min(len, t.capacity));
        s.recv.complete(t, size, n, tag, data, hasData, srcAddr, from);
    }

    /** A receive meets an eager message that arrived first. */
    void deliverUnexpected(RecvEntry t, Unexpected u) {
        receive(t, u.first.mem, u.offset, u.firstLen, u.size, u.tag, u.data, u.hasData, u.src, u.conn);
        s.recv.releaseUnexpected(u);
    }
}
