package io.jfabric.provider.tcp;

import io.jfabric.Access;
import io.jfabric.Errno;
import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.provider.tcp.wire.WireOrder;
import io.jfabric.provider.tcp.wire.WireStatus;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * One connected tcp stream speaking libfabric's tcp data protocol (version 3): it sends queued operations
 * with gathering writes and receives frames into posted buffers, ACKs, remote writes and read responses.
 * Mirrors {@code tcpx_progress.c} (rx state machine, tx queue, need-ack and rma-read queues).
 *
 * <p>Receive: bytes are read through a bounded prefetch buffer (like libfabric's {@code bsock}) so that
 * small frames cost one system call; a large payload is read straight into the posted buffers. When a
 * message arrives and no receive is posted, the connection stops reading once the prefetch buffer is full,
 * so TCP flow control pushes back on the sender; nothing is buffered without bound. A too-small receive
 * gets FI_ETRUNC with olen and the rest of the message is discarded (libfabric instead disables the
 * endpoint). A malformed frame, an unexpected ACK or read response, or an RMA access that fails the key
 * check closes this connection with an error.
 *
 * <p>Not thread-safe: every method runs under the owning endpoint's lock.
 */
final class TcpConnection {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger(TcpParams.PROV);

    /** Linux EPROTO; fabric-api has no constant for it. */
    private static final int EPROTO = 71;

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
    /** Internal entries (ACKs, read responses) kept out of the application's transmit budget. */
    private static final int INTERNAL_RESERVE = 64;
    /**
     * Data moved (reads that brought bytes, writes) after which a connection looks its descriptor up
     * ({@link #findDescriptor}); empty polls do not count, or every idle connection of a busy endpoint would.
     */
    static final int BUSY_CALLS = 64;

    private SocketChannel ch;
    private final ConnectionListener listener;
    private final RmaTarget rmaTarget;
    private final long maxPayload;
    /** The endpoint was opened with FI_TAGGED; otherwise a TCPX_TAGGED frame is a protocol error. */
    private final boolean acceptsTagged;
    private WireOrder order = WireOrder.HOST;
    /** The data protocol runs (CM done). */
    private boolean open;
    /** Ended by failure, peer close or shutdown; never reopens. */
    private boolean ended;
    /** errno the queued operations still have to be failed with after {@link #fail}; 0 when none. */
    private int pendingFlushErr;

    // ---- prefetch buffer, in read mode: [position, limit) holds unread bytes
    private final ByteBuffer stage;

    // ---- receive side
    private final MemorySegment rxHdr;
    private final ByteBuffer rxHdrView;
    private int rxState = RX_HDR;
    private int rxKind;
    private final ByteBuffer[] rxBufs = new ByteBuffer[DataHeader.IOV_LIMIT];
    private final SegmentView[] targetViews = new SegmentView[DataHeader.IOV_LIMIT];
    /** Views of application buffers, shared by this connection's entries (see ViewCache). */
    private final ViewCache viewCache = new ViewCache();
    private int rxBufCount;
    private int rxIdx;
    private long rxLeft;
    private long discardLeft;
    private long rxLen;
    private RxEntry curRx;
    private TxEntry curAck;
    private boolean curHasData;
    private long curData;
    private RxEntry postedHead;
    private RxEntry postedTail;
    /** Posted tagged receives, searched in posting order; a tagged frame with no match waits (backpressure). */
    private RxEntry taggedHead;
    private RxEntry taggedTail;
    private boolean rxTagged;
    private long rxTag;
    private RxEntry rxFree;
    /** Receive entries the rx size still allows beyond those built. */
    private int rxUnbuilt;

    // ---- transmit side
    /** Header and a medium payload are copied here and sent with one write (libfabric's staging sbuf). */
    private final ByteBuffer txStage;
    private TxEntry txCur;
    private TxEntry prioHead;
    private TxEntry prioTail;
    private TxEntry txHead;
    private TxEntry txTail;
    private TxEntry ackHead;
    private TxEntry ackTail;
    private TxEntry readHead;
    private TxEntry readTail;
    private TxEntry txFree;
    private int txFreeCount;
    private boolean writeBlocked;
    /** Header and payload leave in one gathering write (FI_TCP_GATHER_WRITE). */
    private final boolean gatherWrites = TcpParams.GATHER_WRITE.get();
    /**
     * System calls on the socket's descriptor; null until the connection proves busy ({@link #BUSY_CALLS} data
     * reads and writes) or sends a frame that needs a gathering write, and when the descriptor is not found.
     */
    private SocketCalls calls;
    private boolean callsTried;
    private int busyCalls;
    /** Poll the descriptor before reading a drained socket (read_probe, once {@link #calls} exist). */
    private boolean pollFirst;
    /** Native addresses of the staging buffers, for {@link #calls}. */
    private final long stageBase;
    private final long txStageBase;
    /** Data-path write(2)/writev(2) calls made (a plain counter, for tests and diagnostics). */
    private long socketWrites;

    private SelectionKey key;
    /** The owner of {@link #key}'s selector, told of every interest change. */
    private TcpFabric fabric;
    private int interest = -1;

    /**
     * This socket's own readiness set (an epoll set holding only it), asked before a read when the last read
     * drained the socket. Spinning on a read that fails with EAGAIN costs about twice an epoll check and takes
     * the socket lock that the peer's loopback delivery needs; libfabric likewise polls before it receives.
     * Only when the descriptor is unknown (otherwise {@link SocketCalls#readable} polls it); null when it
     * could not be opened: reads are then tried directly.
     */
    private Selector probe;
    /** The last read filled its buffer, or the probe reported the socket readable: the next read may move. */
    private boolean readable = true;
    private final Consumer<SelectionKey> onReadable = k -> readable = true;
    /** Data-path read(2) calls made, successful or not (a plain counter, for tests and diagnostics). */
    private long socketReads;
    /**
     * The last read into the prefetch buffer came back short: the socket was empty a moment ago, so the next
     * attempt is skipped and the one after it reads. Without this, a small message cost a second, failing
     * recv between its arrival and the reply's write: in the same progress pass (tcp), or in the pass that the
     * layer above starts to look for more (rxm).
     */
    private boolean skipStageRead;

    TcpConnection(ConnectionListener listener, RmaTarget rmaTarget,
                  int txSize, int rxSize, int prefetch, long maxPayload, boolean acceptsTagged) {
        this.acceptsTagged = acceptsTagged;
        this.listener = listener;
        this.rmaTarget = rmaTarget;
        this.maxPayload = maxPayload;
        // plain direct buffers: no memory session, so NIO adds no per-call bookkeeping (or garbage)
        this.stage = ByteBuffer.allocateDirect(Math.max(prefetch, 1024));
        this.stage.limit(0);
        this.txStage = ByteBuffer.allocateDirect(Math.max(prefetch, DataHeader.MAX_HDR_SIZE + TxEntry.INLINE_LIMIT));
        this.stageBase = SocketCalls.baseOf(stage);
        this.txStageBase = SocketCalls.baseOf(txStage);
        this.rxHdrView = ByteBuffer.allocateDirect(DataHeader.MAX_HDR_SIZE);
        this.rxHdr = MemorySegment.ofBuffer(rxHdrView);
        this.rxHdrView.limit(DataHeader.BASE_SIZE);
        for (int i = 0; i < targetViews.length; i++) {
            targetViews[i] = new SegmentView(viewCache);
        }
        // entries are built on first use and recycled after: a connection that carries little (one of
        // thousands an rxm endpoint accepts) costs a few entries, not tx_size + rx_size of them
        txFreeCount = txSize + INTERNAL_RESERVE;
        rxUnbuilt = rxSize;
    }

    SocketChannel channel() {
        return ch;
    }

    boolean isOpen() {
        return open;
    }

    boolean isEnded() {
        return ended;
    }

    /** Takes the socket; CM messages may be read through {@link #readCm} from now on. */
    void attach(SocketChannel ch) {
        this.ch = ch;
    }

    /** CM is done: data frames flow in {@code order} from now on. */
    void establish(WireOrder order) {
        this.order = order;
        this.open = !ended;
        if (open && probe == null && TcpParams.READ_PROBE.get()) {
            openProbe();
        }
    }

    /**
     * Looks the socket's descriptor up, once per open connection (a scan of /proc: each connection of an rxm endpoint with thousands
     * would pay it for a message or two, so it waits until the connection is busy) and moves the readiness
     * probe from NIO's selector to poll(2) on it.
     */
    private void findDescriptor() {
        if (callsTried || !open) {
            return;
        }
        callsTried = true;
        calls = SocketCalls.of(ch, 1 + DataHeader.IOV_LIMIT);
        if (calls != null && probe != null) {
            Selector p = probe;
            probe = null;
            pollFirst = true;
            try {
                p.close();
            } catch (IOException ignored) {
                // the descriptor's poll replaces it either way
            }
        }
    }

    private void noteBusy() {
        if (!callsTried && ++busyCalls >= BUSY_CALLS) {
            findDescriptor();
        }
    }

    private void openProbe() {
        Selector sel = null;
        try {
            sel = Selector.open();
            ch.register(sel, SelectionKey.OP_READ);
            probe = sel;
        } catch (IOException | RuntimeException e) {
            // out of descriptors or the like: direct reads work as well, only spinning costs more
            LOG.log(System.Logger.Level.DEBUG, "no readiness probe for {0}, reading directly: {1}", peerText(),
                    e.getMessage());
            if (sel != null) {
                try {
                    sel.close();
                } catch (IOException ignored) {
                    // nothing registered that matters
                }
            }
        }
    }

    /** Asks the probe whether the socket has data (or end of stream, or an error) to read. */
    private boolean probeReadable() throws IOException {
        Selector p = probe;
        if (pollFirst) {
            SocketCalls sc = calls;
            readable = sc == null || sc.readable();
        } else if (p == null) {
            readable = true;
        } else {
            p.selectNow(onReadable);
        }
        return readable;
    }

    /**
     * Reads from the socket once the last read filled its buffer or the probe says data (or end of stream)
     * is there; returns 0 without a read otherwise. A short read means the socket is drained for now.
     */
    private int socketRead(ByteBuffer dst) throws IOException {
        boolean toStage = dst == stage;
        if (!readable && !probeReadable()) {
            return 0;
        }
        int want = dst.remaining();
        socketReads++;
        SocketCalls sc = calls;
        int n = toStage && sc != null ? sc.read(stage, stageBase) : ch.read(dst);
        if (n > 0) {
            noteBusy();
        }
        readable = n == want;
        skipStageRead = toStage && n >= 0 && n < want;
        return n;
    }

    /**
     * Reads CM bytes through the prefetch buffer (so data the peer sends right after its connresp stays
     * buffered for the data path).
     *
     * @return 1 when {@code dst} is full, 0 when more bytes are needed, -1 at end of stream
     */
    int readCm(ByteBuffer dst) throws IOException {
        while (dst.hasRemaining()) {
            if (stage.hasRemaining()) {
                copyFromStage(dst);
                continue;
            }
            int n = fillStage();
            if (n < 0) {
                return -1;
            }
            if (n == 0) {
                return 0;
            }
        }
        return 1;
    }

    WireOrder order() {
        return order;
    }

    /** The prefetch buffer, for the CM code that reads the connresp on the same stream. */
    ByteBuffer stage() {
        return stage;
    }

    void setKey(SelectionKey key, TcpFabric fabric) {
        this.key = key;
        this.fabric = fabric;
        this.interest = -1;
        updateInterest();
    }

    // =================================================================== posting

    /** A free transmit entry for the application, or null when its queue is full (-EAGAIN). */
    TxEntry takeTx() {
        if (txFreeCount <= INTERNAL_RESERVE) {
            return null;
        }
        return popFree();
    }

    private TxEntry takeInternal() {
        return txFreeCount == 0 ? null : popFree();
    }

    private TxEntry popFree() {
        TxEntry e = txFree;
        if (e == null) {
            e = new TxEntry(viewCache); // not built yet: txFreeCount counts it
        } else {
            txFree = e.next;
            e.next = null;
        }
        txFreeCount--;
        return e;
    }

    void releaseTx(TxEntry e) {
        e.reset();
        e.next = txFree;
        txFree = e;
        txFreeCount++;
    }

    RxEntry takeRx() {
        RxEntry e = rxFree;
        if (e != null) {
            rxFree = e.next;
            e.next = null;
        } else if (rxUnbuilt > 0) {
            rxUnbuilt--;
            e = new RxEntry(viewCache);
        }
        return e;
    }

    void releaseRx(RxEntry e) {
        e.reset();
        e.next = rxFree;
        rxFree = e;
    }

    /** Queues a filled entry and writes as much as the socket takes now. */
    int submit(TxEntry e) {
        if (txTail == null) {
            txHead = e;
        } else {
            txTail.next = e;
        }
        txTail = e;
        return progressTx();
    }

    void postRecv(RxEntry e) {
        if (e.tagged) {
            if (taggedTail == null) {
                taggedHead = e;
            } else {
                taggedTail.next = e;
            }
            taggedTail = e;
        } else if (postedTail == null) {
            postedHead = e;
            postedTail = e;
        } else {
            postedTail.next = e;
            postedTail = e;
        }
        if (rxState == RX_WAIT_BUF) {
            updateInterest();
        }
    }

    /** fi_cancel of a posted receive that has not started to fill; true when found. */
    boolean cancelRecv(Object context) {
        RxEntry e = unlink(true, context, false, 0);
        if (e == null) {
            e = unlink(false, context, false, 0);
        }
        if (e == null) {
            return false;
        }
        listener.rxFailed(e, Errno.ECANCELED);
        releaseRx(e);
        return true;
    }

    /**
     * Removes and returns the first entry of the tagged or untagged posted list that has {@code context}
     * ({@code byContext}) or matches {@code sendTag}; null when none.
     */
    private RxEntry unlink(boolean tagged, Object context, boolean byTag, long sendTag) {
        RxEntry prev = null;
        for (RxEntry e = tagged ? taggedHead : postedHead; e != null; prev = e, e = e.next) {
            if (byTag ? e.matches(sendTag) : e.context == context) {
                if (tagged) {
                    if (prev == null) {
                        taggedHead = e.next;
                    } else {
                        prev.next = e.next;
                    }
                    if (taggedTail == e) {
                        taggedTail = prev;
                    }
                } else {
                    if (prev == null) {
                        postedHead = e.next;
                    } else {
                        prev.next = e.next;
                    }
                    if (postedTail == e) {
                        postedTail = prev;
                    }
                }
                e.next = null;
                return e;
            }
        }
        return null;
    }

    /** The posted receive for the message whose header is in rxHdr, unlinked; null when it must wait. */
    private RxEntry takeMatch() {
        if (rxTagged) {
            return taggedHead == null ? null : unlink(true, null, true, rxTag);
        }
        RxEntry e = postedHead;
        if (e != null) {
            postedHead = e.next;
            if (postedHead == null) {
                postedTail = null;
            }
            e.next = null;
        }
        return e;
    }

    private boolean hasMatch() {
        if (!rxTagged) {
            return postedHead != null;
        }
        for (RxEntry e = taggedHead; e != null; e = e.next) {
            if (e.matches(rxTag)) {
                return true;
            }
        }
        return false;
    }

    // =================================================================== progress

    /** Drives both directions; returns how much work was done (0 when idle). */
    int progress() {
        if (!open) {
            return 0;
        }
        int work = progressTx();
        if (open) {
            work += progressRx();
        }
        if (open && (prioHead != null || txHead != null) && txCur == null) {
            // ACKs and read responses queued by this receive go out now, not at the next progress call
            work += progressTx();
        }
        if (open) {
            updateInterest();
        }
        return work;
    }

    private int progressTx() {
        int work = 0;
        try {
            while (open) {
                TxEntry e = txCur;
                if (e == null) {
                    e = prioHead;
                    if (e != null) {
                        prioHead = e.next;
                        if (prioHead == null) {
                            prioTail = null;
                        }
                    } else {
                        e = txHead;
                        if (e == null) {
                            writeBlocked = false;
                            return work;
                        }
                        txHead = e.next;
                        if (txHead == null) {
                            txTail = null;
                        }
                    }
                    e.next = null;
                    txCur = e;
                    stageIfSmall(e);
                }
                if (gatherWrites && e.bufCount - e.bufIndex > 1 && gatherAddresses(e)) {
                    // header and payload in one writev, as libfabric's sendmsg: one system call and no
                    // lone header segment ahead of the payload (TCP_NODELAY would send it on its own)
                    socketWrites++;
                    e.remaining -= calls.write(e.bufs, e.addrs, e.bufIndex, e.bufCount);
                    while (e.bufIndex < e.bufCount && !e.bufs[e.bufIndex].hasRemaining()) {
                        e.bufIndex++;
                    }
                    if (e.bufIndex < e.bufCount) {
                        writeBlocked = true;
                        return work;
                    }
                }
                // otherwise one buffer per write: NIO's gathering write allocates for buffers of
                // segments
                while (e.bufIndex < e.bufCount) {
                    ByteBuffer b = e.bufs[e.bufIndex];
                    socketWrites++;
                    noteBusy();
                    e.remaining -= b == txStage && calls != null ? calls.write(txStage, txStageBase) : ch.write(b);
                    if (b.hasRemaining()) {
                        writeBlocked = true;
                        return work;
                    }
                    e.bufIndex++;
                }
                txCur = null;
                work++;
                sent(e);
            }
        } catch (IOException ex) {
            fail(Errno.ECONNRESET, "send failed: " + ex.getMessage());
        }
        return work;
    }

    /**
     * Fills {@code e.addrs} with the native address of each buffer's position; false when one has none (a
     * heap or private view, closed memory) or no descriptor-level writer exists, so the entry goes out
     * through NIO one buffer at a time.
     */
    private boolean gatherAddresses(TxEntry e) {
        findDescriptor();
        if (calls == null) {
            return false;
        }
        if (e.bufs[0] != e.hdrView) {
            return false;
        }
        e.addrs[0] = e.hdr.address() + e.hdrView.position();
        for (int k = 1; k < e.bufCount; k++) {
            ByteBuffer b = e.bufs[k];
            long addr = 0;
            for (SegmentView sv : e.views) {
                if (sv.owns(b)) {
                    addr = sv.address();
                    break;
                }
            }
            if (addr == 0) {
                return false;
            }
            e.addrs[k] = addr;
        }
        return true;
    }

    /** Copies header and payload into the staging buffer when they fit, so they leave in one write. */
    private void stageIfSmall(TxEntry e) {
        if (e.bufCount == 1 || e.remaining > txStage.capacity()) {
            return;
        }
        txStage.clear();
        for (int i = 0; i < e.bufCount; i++) {
            txStage.put(e.bufs[i]);
        }
        txStage.flip();
        for (int i = 1; i < e.bufCount; i++) {
            e.bufs[i] = null;
        }
        e.bufs[0] = txStage;
        e.bufCount = 1;
    }

    private void sent(TxEntry e) {
        if (e.kind == TxEntry.KIND_READ) {
            append(e, true);
        } else if (e.needAck) {
            append(e, false);
        } else if (e.kind == TxEntry.KIND_INTERNAL) {
            releaseTx(e);
        } else {
            listener.txDone(e);
            releaseTx(e);
        }
    }

    private void append(TxEntry e, boolean read) {
        if (read) {
            if (readTail == null) {
                readHead = e;
            } else {
                readTail.next = e;
            }
            readTail = e;
        } else {
            if (ackTail == null) {
                ackHead = e;
            } else {
                ackTail.next = e;
            }
            ackTail = e;
        }
    }

    private void queueInternal(TxEntry e) {
        if (prioTail == null) {
            prioHead = e;
        } else {
            prioTail.next = e;
        }
        prioTail = e;
    }

    private int progressRx() {
        int work = 0;
        try {
            for (int round = 0; round < 256 && open; round++) {
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
                        RxEntry e = takeMatch();
                        if (e == null) {
                            // keep filling the bounded prefetch buffer so a dead peer is noticed
                            if (stage.limit() < stage.capacity() && fillStage() < 0) {
                                peerClosed();
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
        } catch (IOException ex) {
            fail(Errno.ECONNRESET, "receive failed: " + ex.getMessage());
        }
        return work;
    }

    /** Reads up to capacity into the prefetch buffer; returns bytes read, or -1 at end of stream. */
    private int fillStage() throws IOException {
        if (open && skipStageRead) {
            skipStageRead = false;
            return 0;
        }
        if (open && !readable && !probeReadable()) {
            return 0; // nothing arrived: leave the buffer as it is
        }
        stage.compact();
        int n;
        try {
            n = open ? socketRead(stage) : ch.read(stage);
        } finally {
            stage.flip();
        }
        return n;
    }

    private boolean readHeader() throws IOException {
        while (true) {
            if (stage.hasRemaining()) {
                copyFromStage(rxHdrView);
            }
            if (!rxHdrView.hasRemaining()) {
                int target = rxHdrView.limit();
                if (target == DataHeader.BASE_SIZE) {
                    int st = DataHeader.decodeBase(rxHdr, order, maxPayload);
                    if (st < 0) {
                        protocolError(st);
                        return false;
                    }
                    if (st > DataHeader.BASE_SIZE) {
                        rxHdrView.limit(st);
                        continue;
                    }
                }
                int st = DataHeader.decodeExtensions(rxHdr, order, maxPayload);
                if (st < 0) {
                    protocolError(st);
                    return false;
                }
                return true;
            }
            int n = fillStage();
            if (n < 0) {
                peerClosed();
                return false;
            }
            if (n == 0) {
                return false;
            }
        }
    }

    private void copyFromStage(ByteBuffer dst) {
        int n = Math.min(stage.remaining(), dst.remaining());
        if (n == 0) {
            return;
        }
        int lim = stage.limit();
        stage.limit(stage.position() + n);
        dst.put(stage);
        stage.limit(lim);
    }

    /** Acts on a complete, validated header; false when it must wait (no free entry for an ACK/response). */
    private boolean dispatch() {
        MemorySegment h = rxHdr;
        WireOrder o = order;
        if (DataHeader.isAck(h)) {
            TxEntry e = ackHead;
            if (e == null) {
                protocolError(EPROTO, "ACK received with no operation waiting for one");
                return false;
            }
            ackHead = e.next;
            if (ackHead == null) {
                ackTail = null;
            }
            e.next = null;
            resetRx();
            listener.txDone(e);
            releaseTx(e);
            return true;
        }
        int op = DataHeader.op(h);
        boolean wantsAck = DataHeader.wantsAck(h, o);
        if ((wantsAck || op == DataHeader.OP_READ_REQ) && curAck == null) {
            curAck = takeInternal();
            if (curAck == null) {
                return false; // retried once our own sends drain
            }
        }
        long payload = DataHeader.payloadLength(h, o);
        switch (op) {
            case DataHeader.OP_MSG -> {
                rxKind = KIND_MSG;
                curHasData = DataHeader.hasCqData(h, o);
                curData = DataHeader.cqData(h, o);
                rxTagged = (DataHeader.flags(h, o) & DataHeader.FLAG_TAGGED) != 0;
                if (rxTagged && !acceptsTagged) {
                    // waiting for a trecv that can never be posted would stall the connection for good
                    protocolError(EPROTO, "peer sent a tagged message to an endpoint opened without FI_TAGGED"
                            + " (tcp;ofi_rxm peers must agree on FI_OFI_RXM_ENABLE_DYN_RBUF)");
                    return false;
                }
                rxTag = DataHeader.tag(h, o);
                rxLen = payload;
                rxState = RX_WAIT_BUF;
                RxEntry e = takeMatch();
                if (e != null) {
                    startMsg(e);
                }
            }
            case DataHeader.OP_WRITE -> {
                int cnt = DataHeader.rmaIovCount(h);
                for (int i = 0; i < cnt; i++) {
                    long len = DataHeader.rmaLen(h, o, i);
                    ByteBuffer v = rmaTarget.resolve(DataHeader.rmaKey(h, o, i), DataHeader.rmaAddr(h, o, i), len,
                            Access.REMOTE_WRITE, targetViews[i]);
                    if (v == null) {
                        protocolError(rmaTarget.lastError(), "remote write refused: " + rmaTarget.lastReason());
                        return false;
                    }
                    rxBufs[i] = v;
                }
                rxKind = KIND_WRITE;
                rxBufCount = cnt;
                rxIdx = 0;
                rxLen = payload;
                rxLeft = payload;
                discardLeft = 0;
                curHasData = DataHeader.hasCqData(h, o);
                curData = DataHeader.cqData(h, o);
                rxState = RX_PAYLOAD;
            }
            case DataHeader.OP_READ_REQ -> {
                TxEntry rsp = curAck;
                curAck = null;
                int cnt = DataHeader.rmaIovCount(h);
                long total = 0;
                for (int i = 0; i < cnt; i++) {
                    long len = DataHeader.rmaLen(h, o, i);
                    ByteBuffer v = rmaTarget.resolve(DataHeader.rmaKey(h, o, i), DataHeader.rmaAddr(h, o, i), len,
                            Access.REMOTE_READ, rsp.views[i]);
                    if (v == null) {
                        releaseTx(rsp);
                        protocolError(rmaTarget.lastError(), "remote read refused: " + rmaTarget.lastReason());
                        return false;
                    }
                    rsp.bufs[1 + i] = v;
                    total += len;
                }
                rsp.kind = TxEntry.KIND_INTERNAL;
                int hl = DataHeader.encodeReadRsp(rsp.hdr, o, total);
                rsp.hdrView.clear().limit(hl);
                rsp.bufs[0] = rsp.hdrView;
                rsp.bufCount = 1 + cnt;
                rsp.remaining = hl + total;
                queueInternal(rsp);
                resetRx();
                listener.remoteRead(total);
            }
            case DataHeader.OP_READ_RSP -> {
                TxEntry rd = readHead;
                if (rd == null) {
                    protocolError(EPROTO, "read response received with no read outstanding");
                    return false;
                }
                if (payload != rd.len) {
                    protocolError(EPROTO, "read response of " + payload + " B for a read of " + rd.len + " B");
                    return false;
                }
                for (int i = 0; i < rd.readIovCount; i++) {
                    rxBufs[i] = rd.views[i].of(rd.readIov[i]);
                }
                rxKind = KIND_READ_RSP;
                rxBufCount = rd.readIovCount;
                rxIdx = 0;
                rxLen = payload;
                rxLeft = payload;
                discardLeft = 0;
                rxState = RX_PAYLOAD;
            }
            default -> {
                protocolError(WireStatus.UNKNOWN_OP);
                return false;
            }
        }
        return true;
    }

    private void startMsg(RxEntry e) {
        curRx = e;
        e.rxTag = rxTag;
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

    /** Fills rxBufs with the next rxLeft bytes; true when done. */
    private boolean readPayload() throws IOException {
        while (rxLeft > 0) {
            while (!rxBufs[rxIdx].hasRemaining()) {
                rxIdx++;
            }
            if (stage.hasRemaining()) {
                for (int i = rxIdx; i < rxBufCount && stage.hasRemaining(); i++) {
                    int before = rxBufs[i].remaining();
                    copyFromStage(rxBufs[i]);
                    rxLeft -= before - rxBufs[i].remaining();
                }
                continue;
            }
            long n;
            if (rxLeft >= DIRECT_READ_MIN) {
                // straight into the posted buffer, one buffer per read (see progressTx)
                n = socketRead(rxBufs[rxIdx]);
            } else {
                n = fillStage();
                if (n > 0) {
                    continue;
                }
            }
            if (n < 0) {
                peerClosed();
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
            if (!stage.hasRemaining()) {
                int n = fillStage();
                if (n < 0) {
                    peerClosed();
                    return false;
                }
                if (n == 0) {
                    return false;
                }
            }
            int k = (int) Math.min(stage.remaining(), discardLeft);
            stage.position(stage.position() + k);
            discardLeft -= k;
        }
        return true;
    }

    private void finishPayload() {
        TxEntry ack = null;
        if (curAck != null && DataHeader.wantsAck(rxHdr, order)) {
            ack = curAck;
            curAck = null;
            int hl = DataHeader.encodeAck(ack.hdr, order);
            ack.kind = TxEntry.KIND_INTERNAL;
            ack.hdrView.clear().limit(hl);
            ack.bufs[0] = ack.hdrView;
            ack.bufCount = 1;
            ack.remaining = hl;
            queueInternal(ack);
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
                releaseRx(e);
            }
            case KIND_WRITE -> {
                resetRx();
                listener.remoteWrite(len, hasData, data);
            }
            case KIND_READ_RSP -> {
                TxEntry rd = readHead;
                readHead = rd.next;
                if (readHead == null) {
                    readTail = null;
                }
                rd.next = null;
                resetRx();
                listener.txDone(rd);
                releaseTx(rd);
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
        rxHdrView.clear().limit(DataHeader.BASE_SIZE);
        rxState = RX_HDR;
    }

    // =================================================================== readiness

    private void updateInterest() {
        SelectionKey k = key;
        if (k == null) {
            return;
        }
        int want = 0;
        boolean starved = rxState == RX_WAIT_BUF && stage.limit() == stage.capacity() && !hasMatch();
        if (!starved) {
            want |= SelectionKey.OP_READ;
        }
        if (writeBlocked) {
            want |= SelectionKey.OP_WRITE;
        }
        if (want != interest) {
            interest = want;
            try {
                k.interestOps(want);
            } catch (RuntimeException ex) {
                return; // cancelled key: the connection is closing
            }
            fabric.interestChanged();
        }
    }

    /** Whether data-path system calls go to the socket's descriptor directly ({@link SocketCalls}). */
    boolean usesDescriptorCalls() {
        return calls != null;
    }

    /** Data-path write(2)/writev(2) calls so far. */
    long socketWrites() {
        return socketWrites;
    }

    /** Data-path read(2) calls so far. */
    long socketReads() {
        return socketReads;
    }

    /** True when something could move without the socket (queued frames not yet tried). */
    boolean hasPendingTx() {
        return txCur != null || txHead != null || prioHead != null;
    }

    // =================================================================== failure and close

    private void protocolError(int status) {
        protocolError(WireStatus.errno(status), WireStatus.describe(status));
    }

    private void protocolError(int errno, String reason) {
        LOG.log(System.Logger.Level.WARNING, "closing connection to {0}: {1}", peerText(), reason);
        fail(errno == 0 ? Errno.EIO : errno, reason);
    }

    private void peerClosed() {
        LOG.log(System.Logger.Level.DEBUG, "peer {0} closed the connection", peerText());
        fail(0, "peer closed the connection");
    }

    private String peerText() {
        try {
            return String.valueOf(ch.getRemoteAddress());
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /**
     * Ends the connection: closes the socket and completes every queued or posted operation with an error
     * ({@code errno}, or ECONNRESET for an orderly close by the peer; ECANCELED for a local shutdown).
     */
    void fail(int errno, String reason) {
        if (ended) {
            return;
        }
        ended = true;
        open = false;
        closeChannel();
        // the EQ learns why first; the posted operations fail at the next progress call, so an application
        // polling CQ then EQ sees SHUTDOWN before (or with) the flushed completions, not after them
        pendingFlushErr = errno == 0 ? Errno.ECONNRESET : errno;
        listener.connectionEnded(errno, reason);
    }

    /** True when a failure's flush is still owed (see {@link #fail}). */
    boolean flushPending() {
        return pendingFlushErr != 0;
    }

    /** Completes every operation left by a failure with its error; returns how many were flushed. */
    int flushAfterFailure() {
        int err = pendingFlushErr;
        if (err == 0) {
            return 0;
        }
        pendingFlushErr = 0;
        flush(err);
        return 1;
    }

    /** fi_shutdown: tries once more to send what is queued, then closes and flushes with ECANCELED. */
    void shutdown() {
        if (ended) {
            flushAfterFailure();
            return;
        }
        if (open) {
            progressTx();
        }
        if (ended) {
            return;
        }
        ended = true;
        open = false;
        closeChannel();
        flush(Errno.ECANCELED);
    }

    private void closeChannel() {
        pollFirst = false;
        callsTried = true;
        SelectionKey k = key;
        if (k != null) {
            k.cancel();
        }
        Selector p = probe;
        if (p != null) {
            probe = null;
            try {
                p.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        calls = null; // the descriptor number is free for reuse once the channel closes
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            if (k != null) {
                TcpFabric.flushCancelledKeys(k.selector());
            }
        }
    }

    private void flush(int err) {
        if (txCur != null) {
            TxEntry e = txCur;
            txCur = null;
            failTx(e, err);
        }
        prioHead = flushTxList(prioHead, err);
        prioTail = null;
        txHead = flushTxList(txHead, err);
        txTail = null;
        ackHead = flushTxList(ackHead, err);
        ackTail = null;
        readHead = flushTxList(readHead, err);
        readTail = null;
        if (curAck != null) {
            releaseTx(curAck);
            curAck = null;
        }
        if (curRx != null) {
            RxEntry e = curRx;
            curRx = null;
            listener.rxFailed(e, err);
            releaseRx(e);
        }
        int rxErr = err == Errno.ECONNRESET ? Errno.ECONNRESET : Errno.ECANCELED;
        flushPosted(postedHead, rxErr);
        postedHead = null;
        postedTail = null;
        flushPosted(taggedHead, rxErr);
        taggedHead = null;
        taggedTail = null;
        for (int i = 0; i < rxBufs.length; i++) {
            rxBufs[i] = null;
        }
        for (SegmentView v : targetViews) {
            v.clear();
        }
        viewCache.clear();
    }

    private void flushPosted(RxEntry r, int err) {
        while (r != null) {
            RxEntry next = r.next;
            r.next = null;
            listener.rxFailed(r, err);
            releaseRx(r);
            r = next;
        }
    }

    private TxEntry flushTxList(TxEntry head, int err) {
        while (head != null) {
            TxEntry next = head.next;
            head.next = null;
            failTx(head, err);
            head = next;
        }
        return null;
    }

    private void failTx(TxEntry e, int err) {
        if (e.kind != TxEntry.KIND_INTERNAL) {
            listener.txFailed(e, err);
        }
        releaseTx(e);
    }

    /** Short state dump for test failure messages. */
    String describe() {
        int posted = 0;
        for (RxEntry e = postedHead; e != null; e = e.next) {
            posted++;
        }
        int postedTagged = 0;
        for (RxEntry e = taggedHead; e != null; e = e.next) {
            postedTagged++;
        }
        int acks = 0;
        for (TxEntry e = ackHead; e != null; e = e.next) {
            acks++;
        }
        int reads = 0;
        for (TxEntry e = readHead; e != null; e = e.next) {
            reads++;
        }
        return "conn[open=" + open + ", order=" + order + ", rxState=" + rxState + ", posted=" + posted + ", postedTagged=" + postedTagged
                + ", waitingAck=" + acks + ", reads=" + reads + ", txFree=" + txFreeCount + ", staged="
                + stage.remaining() + ", txBusy=" + hasPendingTx() + "]";
    }
}
