package io.jfabric.provider.tcp;

import io.jfabric.Errno;
import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.provider.tcp.wire.WireOrder;
import io.jfabric.provider.tcp.wire.WireStatus;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One connection's receive state machine, libfabric tcp's {@code xnet_progress_rx}: header, dispatch by opcode
 * (one handler each: ACK, message, remote write, read request, read response), payload, discard. A large
 * payload is read straight into the posted buffers. When a message arrives and no receive is posted, the
 * machine stops reading once the prefetch buffer is full, so TCP flow control pushes back on the sender;
 * nothing is buffered without bound. A remote write with CQ data is taken only once a receive-CQ slot is
 * promised to it, so a writer faster than the application's CQ reads is slowed the same way instead of
 * overrunning the CQ (libfabric queues such completions on an overflow list). A too-small receive gets FI_ETRUNC with olen and the rest of the message
 * is discarded (libfabric instead disables the endpoint). A malformed frame, an unexpected ACK or read
 * response, or an RMA access that fails the key check closes the connection with an error.
 *
 * <p>Not thread-safe: every method runs under the owning endpoint's lock.
 */
final class TcpRecvMachine {
    private static final int RX_HDR = 0;
    private static final int RX_DISPATCH = 1;
    private static final int RX_WAIT_BUF = 2;
    private static final int RX_PAYLOAD = 3;
    private static final int RX_DISCARD = 4;

    private static final int KIND_MSG = 0;
    private static final int KIND_WRITE = 1;
    private static final int KIND_READ_RSP = 2;

    /** Below this many payload bytes left, read through the prefetch buffer rather than into the target. */
    private static final int DIRECT_READ_MIN = 4096;

    private final TcpProgress engine;
    private final TcpConnection conn;
    private final TcpTxQueue tx;
    private final TcpRecvQueue posted;
    private final TcpRmaTarget rmaTarget;
    private final ConnectionListener listener;
    private final long maxPayload;
    /** The endpoint was opened with FI_TAGGED; otherwise a TCPX_TAGGED frame is a protocol error. */
    private final boolean acceptsTagged;

    private final MemorySegment rxHdr;
    private final ByteBuffer rxHdrView;
    private int rxState = RX_HDR;
    private int rxKind;
    private final ByteBuffer[] rxBufs = new ByteBuffer[DataHeader.IOV_LIMIT];
    private final SegmentView[] targetViews = new SegmentView[DataHeader.IOV_LIMIT];
    private int rxBufCount;
    private int rxIdx;
    private long rxLeft;
    private long discardLeft;
    private long rxLen;
    private RxEntry curRx;
    /** The entry the ACK or read response to the frame being received goes out in. */
    private TxEntry curAck;
    private boolean curHasData;
    private long curData;
    private boolean rxTagged;
    private long rxTag;
    /** The message being received stays in the sender's memory (TcpSameHost). */
    private boolean rxSameHost;
    /** The remote write being received holds a receive-CQ slot for its CQ data. */
    private boolean dataSlotHeld;
    /** A remote write with CQ data waits for room in the receive CQ: stop reading until the application reads. */
    private boolean waitingForCq;

    TcpRecvMachine(TcpProgress engine, TcpConnection conn, TcpTxQueue tx, TcpRecvQueue posted,
                   TcpRmaTarget rmaTarget, ConnectionListener listener, ViewCache viewCache, long maxPayload,
                   boolean acceptsTagged) {
        this.engine = engine;
        this.conn = conn;
        this.tx = tx;
        this.posted = posted;
        this.rmaTarget = rmaTarget;
        this.listener = listener;
        this.maxPayload = maxPayload;
        this.acceptsTagged = acceptsTagged;
        this.rxHdrView = ByteBuffer.allocateDirect(DataHeader.MAX_HDR_SIZE);
        this.rxHdr = MemorySegment.ofBuffer(rxHdrView);
        this.rxHdrView.limit(DataHeader.BASE_SIZE);
        for (int i = 0; i < targetViews.length; i++) {
            targetViews[i] = new SegmentView(viewCache);
        }
    }

    /** Runs the machine until the socket has nothing more for it; returns how many frames it finished. */
    int progress() throws IOException {
        int work = 0;
        for (int round = 0; round < 256 && conn.isOpen(); round++) {
            switch (rxState) {
                case RX_HDR -> {
                    if (!readHeader()) {
                        return work;
                    }
                    rxState = RX_DISPATCH;
                }
                case RX_DISPATCH -> {
                    if (!dispatch()) {
                        return work;
                    }
                    work++;
                }
                case RX_WAIT_BUF -> {
                    RxEntry e = posted.match(rxTagged, rxTag);
                    if (e == null) {
                        // keep filling the bounded prefetch buffer so a dead peer is noticed
                        if (!conn.stageFull() && conn.fillStage() < 0) {
                            engine.peerClosed();
                        }
                        return work;
                    }
                    startMsg(e);
                }
                case RX_PAYLOAD -> {
                    if (!readPayload()) {
                        return work;
                    }
                    if (discardLeft > 0) {
                        rxState = RX_DISCARD;
                    } else {
                        finishPayload();
                        work++;
                    }
                }
                case RX_DISCARD -> {
                    if (!discard()) {
                        return work;
                    }
                    finishPayload();
                    work++;
                }
                default -> throw new IllegalStateException("rx state " + rxState);
            }
        }
        return work;
    }

    /** A message waits for a receive. */
    boolean waitingForBuffer() {
        return rxState == RX_WAIT_BUF;
    }

    /** Nothing to do until the socket has more: no buffered bytes, no receive or free entry awaited. */
    boolean waitsOnlyForSocket() {
        return (rxState == RX_HDR || rxState == RX_PAYLOAD || rxState == RX_DISCARD) && !conn.hasStaged();
    }

    /**
     * Stop reading: a message waits for a receive that is not posted and the prefetch buffer is full, or a
     * remote write's CQ data waits for room in the receive CQ.
     */
    boolean starved() {
        return rxState == RX_WAIT_BUF && conn.stageFull() && !posted.hasMatch(rxTagged, rxTag)
                || rxState == RX_DISPATCH && waitingForCq;
    }

    private boolean readHeader() throws IOException {
        WireOrder order = conn.order();
        while (true) {
            conn.copyFromStage(rxHdrView);
            if (!rxHdrView.hasRemaining()) {
                int target = rxHdrView.limit();
                if (target == DataHeader.BASE_SIZE) {
                    int st = DataHeader.decodeBase(rxHdr, order, maxPayload);
                    if (st < 0) {
                        engine.protocolError(st);
                        return false;
                    }
                    if (st > DataHeader.BASE_SIZE) {
                        rxHdrView.limit(st);
                        continue;
                    }
                }
                int st = DataHeader.decodeExtensions(rxHdr, order, maxPayload);
                if (st < 0) {
                    engine.protocolError(st);
                    return false;
                }
                return true;
            }
            if (!refill()) {
                return false;
            }
        }
    }

    /** Reads more into the prefetch buffer; false when nothing came, or the peer closed (the connection ends). */
    private boolean refill() throws IOException {
        int n = conn.fillStage();
        if (n < 0) {
            engine.peerClosed();
            return false;
        }
        return n > 0;
    }

    // =================================================================== dispatch, one handler per opcode

    /** Acts on a complete, validated header; false when it must wait (no free entry for an ACK/response). */
    private boolean dispatch() {
        MemorySegment h = rxHdr;
        WireOrder o = conn.order();
        if (DataHeader.isAck(h)) {
            return onAck();
        }
        int op = DataHeader.op(h);
        boolean wantsAck = DataHeader.wantsAck(h, o);
        if ((wantsAck || op == DataHeader.OP_READ_REQ) && curAck == null) {
            curAck = tx.takeInternal();
            if (curAck == null) {
                return false; // retried once our own sends drain
            }
        }
        long payload = DataHeader.payloadLength(h, o);
        return switch (op) {
            case DataHeader.OP_MSG -> onMsg(h, o, payload);
            case DataHeader.OP_WRITE -> onWrite(h, o, payload);
            case DataHeader.OP_READ_REQ -> onReadRequest(h, o);
            case DataHeader.OP_READ_RSP -> onReadResponse(h, o, payload);
            case DataHeader.OP_SAME_HOST_READY -> onSameHostReady();
            default -> {
                engine.protocolError(WireStatus.UNKNOWN_OP);
                yield false;
            }
        };
    }

    private boolean onAck() {
        TxEntry e = tx.takeAcked();
        if (e == null) {
            engine.protocolError(Errno.EPROTO, "ACK received with no operation waiting for one");
            return false;
        }
        resetRx();
        listener.txDone(e);
        tx.release(e);
        return true;
    }

    private boolean onMsg(MemorySegment h, WireOrder o, long payload) {
        rxKind = KIND_MSG;
        curHasData = DataHeader.hasCqData(h, o);
        curData = DataHeader.cqData(h, o);
        rxTagged = (DataHeader.flags(h, o) & DataHeader.FLAG_TAGGED) != 0;
        if (rxTagged && !acceptsTagged) {
            // waiting for a trecv that can never be posted would stall the connection for good
            engine.protocolError(Errno.EPROTO, "peer sent a tagged message to an endpoint opened without FI_TAGGED"
                    + " (tcp;ofi_rxm peers must agree on FI_OFI_RXM_ENABLE_DYN_RBUF)");
            return false;
        }
        rxTag = DataHeader.tag(h, o);
        rxLen = payload;
        if (DataHeader.isSameHost(h, o)) {
            if (!readsPeer("a same-host message")) {
                return false;
            }
            rxSameHost = true;
            rxLen = DataHeader.sameHostLength(h, o);
        }
        rxState = RX_WAIT_BUF;
        RxEntry e = posted.match(rxTagged, rxTag);
        if (e != null) {
            startMsg(e);
        }
        return true;
    }

    /** The peer can copy from our memory: large sends to it may go by copy from now on. */
    private boolean onSameHostReady() {
        if (conn.sameHost == null) {
            engine.protocolError(Errno.EPROTO, "peer sent a same-host READY frame, which this side never offered");
            return false;
        }
        conn.sameHost.peerReady();
        resetRx();
        return true;
    }

    private boolean onWrite(MemorySegment h, WireOrder o, long payload) {
        boolean sameHost = DataHeader.isSameHostWrite(h, o);
        if (sameHost && !readsPeer("a same-host write")) {
            return false;
        }
        if (DataHeader.hasCqData(h, o) && !dataSlotHeld) {
            if (!listener.reserveRemoteData()) {
                waitingForCq = true; // retried by the next progress, which a read of that CQ drives
                return false;
            }
            dataSlotHeld = true;
            waitingForCq = false;
        }
        int cnt = rmaTarget.writeTargets(h, o, rxBufs, targetViews);
        if (cnt < 0) {
            engine.protocolError(rmaTarget.lastError(), "remote write refused: " + rmaTarget.lastReason());
            return false;
        }
        rxKind = KIND_WRITE;
        curHasData = DataHeader.hasCqData(h, o);
        curData = DataHeader.cqData(h, o);
        if (sameHost) {
            return copyWrite(h, o, cnt);
        }
        startPayload(cnt, payload);
        return true;
    }

    /** A same-host copy of {@code len} bytes of a {@code what} failed with {@code -rc}: the connection closes. */
    private boolean copyFailed(int rc, long len, String what) {
        engine.protocolError(-rc, "copying a " + len + " B " + what + " out of the peer's memory failed: "
                + Errno.name(-rc));
        return false;
    }

    /** A same-host write: the data comes straight from the initiator's memory into the checked ranges. */
    private boolean copyWrite(MemorySegment h, WireOrder o, int views) {
        long len = DataHeader.sameHostLength(h, o);
        int rc = conn.sameHost.copyWrite(h, o, rxBufs, targetViews, views);
        if (rc != 0) {
            return copyFailed(rc, len, "write");
        }
        startPayload(views, 0); // nothing follows on the socket; the views are dropped when it finishes
        rxLen = len;
        return true;
    }

    private boolean onReadRequest(MemorySegment h, WireOrder o) {
        TxEntry rsp = curAck;
        curAck = null;
        long total = rmaTarget.readResponse(h, o, rsp);
        if (total < 0) {
            tx.release(rsp);
            engine.protocolError(rmaTarget.lastError(), "remote read refused: " + rmaTarget.lastReason());
            return false;
        }
        if (conn.sameHost != null) {
            conn.sameHost.lendRead(rsp, total, o);
        }
        tx.enqueueInternal(rsp);
        resetRx();
        listener.remoteRead(total);
        return true;
    }

    private boolean onReadResponse(MemorySegment h, WireOrder o, long payload) {
        TxEntry rd = tx.oldestRead();
        if (rd == null) {
            engine.protocolError(Errno.EPROTO, "read response received with no read outstanding");
            return false;
        }
        if (DataHeader.isSameHost(h, o)) {
            return copyReadResponse(h, o, rd);
        }
        if (payload != rd.len) {
            engine.protocolError(Errno.EPROTO, "read response of " + payload + " B for a read of " + rd.len + " B");
            return false;
        }
        for (int i = 0; i < rd.readIovCount; i++) {
            rxBufs[i] = rd.views[i].of(rd.readIov[i]);
        }
        rxKind = KIND_READ_RSP;
        startPayload(rd.readIovCount, payload);
        return true;
    }

    /** Whether this side verified it can read the peer, which a same-host {@code frame} needs; else closes the connection. */
    private boolean readsPeer(String frame) {
        if (conn.sameHost != null && conn.sameHost.readsPeer()) {
            return true;
        }
        engine.protocolError(Errno.EPROTO, "peer sent " + frame + ", but this side cannot read its memory");
        return false;
    }

    /** A same-host read response: the data comes straight from the target's memory; nothing follows on the socket. */
    private boolean copyReadResponse(MemorySegment h, WireOrder o, TxEntry rd) {
        if (!readsPeer("a same-host read response")) {
            return false;
        }
        long len = DataHeader.sameHostLength(h, o);
        if (len != rd.len) {
            engine.protocolError(Errno.EPROTO, "same-host read response of " + len + " B for a read of " + rd.len + " B");
            return false;
        }
        int rc = conn.sameHost.copy(h, o, rd.readIov, rd.readIovCount, len);
        if (rc != 0) {
            return copyFailed(rc, len, "read response");
        }
        rxKind = KIND_READ_RSP;
        startPayload(0, 0);
        return true;
    }

    private void startPayload(int bufCount, long payload) {
        rxBufCount = bufCount;
        rxIdx = 0;
        rxLen = payload;
        rxLeft = payload;
        discardLeft = 0;
        rxState = RX_PAYLOAD;
    }

    private void startMsg(RxEntry e) {
        curRx = e;
        e.rxTag = rxTag;
        if (rxSameHost) {
            copySameHost(e);
            return;
        }
        long left = rxLen;
        int n = 0;
        for (int i = 0; i < e.iovCount && left > 0; i++) {
            ByteBuffer v = e.views[i].of(e.iov[i]);
            if (v.remaining() > left) {
                v.limit((int) left);
            }
            left -= v.remaining();
            rxBufs[n++] = v;
        }
        rxBufCount = n;
        rxIdx = 0;
        rxLeft = rxLen - left;
        discardLeft = left;
        rxState = RX_PAYLOAD;
    }

    /** The whole message (or what fits) straight from the sender's memory; no payload follows on the socket. */
    private void copySameHost(RxEntry e) {
        int rc = conn.sameHost.copy(rxHdr, conn.order(), e.iov, e.iovCount, Math.min(rxLen, e.capacity));
        if (rc != 0) {
            copyFailed(rc, rxLen, "message");
            return;
        }
        rxBufCount = 0;
        rxIdx = 0;
        rxLeft = 0;
        discardLeft = 0;
        rxState = RX_PAYLOAD;
    }

    // =================================================================== payload

    /** Fills rxBufs with the next rxLeft bytes; true when done. */
    private boolean readPayload() throws IOException {
        while (rxLeft > 0) {
            while (!rxBufs[rxIdx].hasRemaining()) {
                rxIdx++;
            }
            if (conn.hasStaged()) {
                for (int i = rxIdx; i < rxBufCount && conn.hasStaged(); i++) {
                    rxLeft -= conn.copyFromStage(rxBufs[i]);
                }
                continue;
            }
            long n;
            if (rxLeft >= DIRECT_READ_MIN) {
                // straight into the posted buffer, one buffer per read (see TcpConnection#write)
                n = conn.socketRead(rxBufs[rxIdx]);
            } else {
                n = conn.fillStage();
                if (n > 0) {
                    continue;
                }
            }
            if (n < 0) {
                engine.peerClosed();
                return false;
            }
            if (n == 0) {
                return false;
            }
            rxLeft -= n;
        }
        return true;
    }

    private boolean discard() throws IOException {
        while (discardLeft > 0) {
            if (!conn.hasStaged() && !refill()) {
                return false;
            }
            discardLeft -= conn.skipStaged(discardLeft);
        }
        return true;
    }

    private void finishPayload() {
        WireOrder order = conn.order();
        if (curAck != null && DataHeader.wantsAck(rxHdr, order)) {
            TxEntry ack = curAck;
            curAck = null;
            ack.headerOnly(DataHeader.encodeAck(ack.hdr, order));
            tx.enqueueInternal(ack);
        }
        int kind = rxKind;
        long len = rxLen;
        boolean hasData = curHasData;
        long data = curData;
        switch (kind) {
            case KIND_MSG -> {
                RxEntry e = curRx;
                curRx = null;
                long truncated = Math.max(0, len - e.capacity);
                resetRx();
                listener.rxDone(e, len - truncated, truncated, hasData, data);
                posted.release(e);
            }
            case KIND_WRITE -> {
                dataSlotHeld = false;
                resetRx();
                listener.remoteWrite(len, hasData, data);
            }
            case KIND_READ_RSP -> {
                TxEntry rd = tx.takeRead();
                resetRx();
                listener.txDone(rd);
                tx.release(rd);
            }
            default -> throw new IllegalStateException("rx kind " + kind);
        }
    }

    private void resetRx() {
        for (int i = 0; i < rxBufCount; i++) {
            rxBufs[i] = null;
        }
        rxBufCount = 0;
        rxIdx = 0;
        rxLeft = 0;
        discardLeft = 0;
        curHasData = false;
        curData = 0;
        rxTagged = false;
        rxTag = 0;
        rxSameHost = false;
        rxHdrView.clear().limit(DataHeader.BASE_SIZE);
        rxState = RX_HDR;
    }

    // =================================================================== failure

    /** Fails the receive being filled and every posted one with {@code err}, and drops every view; returns how many failed. */
    int flush(int err) {
        int n = 0;
        if (curAck != null) {
            tx.release(curAck);
            curAck = null;
        }
        if (dataSlotHeld) {
            dataSlotHeld = false;
            listener.cancelRemoteData();
        }
        waitingForCq = false;
        if (curRx != null) {
            RxEntry e = curRx;
            curRx = null;
            listener.rxFailed(e, err);
            posted.release(e);
            n++;
        }
        int rxErr = err == Errno.ECONNRESET ? Errno.ECONNRESET : Errno.ECANCELED;
        for (RxEntry r = posted.removeFirst(); r != null; r = posted.removeFirst()) {
            listener.rxFailed(r, rxErr);
            posted.release(r);
            n++;
        }
        for (int i = 0; i < rxBufs.length; i++) {
            rxBufs[i] = null;
        }
        for (SegmentView v : targetViews) {
            v.clear();
        }
        return n;
    }

    /** Short state dump for test failure messages. */
    String describe() {
        return "rxState=" + rxState + ", " + posted.describe();
    }
}
