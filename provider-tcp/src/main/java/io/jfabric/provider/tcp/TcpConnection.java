package io.jfabric.provider.tcp;

import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.provider.tcp.wire.WireOrder;

import io.jfabric.util.Sockaddr;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * One tcp stream's socket I/O: the bounded prefetch buffer reads go through (like libfabric's {@code bsock}),
 * so that small frames cost one system call, the transmit staging buffer, gathering writes, the readiness
 * probe and the selector interest. What the bytes mean is the business of {@link TcpRecvMachine} and
 * {@link TcpTxQueue}; {@link TcpProgress} drives them.
 *
 * <p>Not thread-safe: every method runs under the owning endpoint's lock.
 */
final class TcpConnection {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger(TcpParams.PROV);

    /**
     * Data moved (reads that brought bytes, writes) after which a connection looks its descriptor up
     * ({@link #findDescriptor}); empty polls do not count, or every idle connection of a busy endpoint would.
     */
    static final int BUSY_CALLS = 64;

    private SocketChannel ch;
    private WireOrder order = WireOrder.HOST;
    /** The data protocol runs (CM done). */
    private boolean open;
    /** Ended by failure, peer close or shutdown; never reopens. */
    private boolean ended;

    // ---- prefetch buffer, in read mode: [position, limit) holds unread bytes
    private final ByteBuffer stage;
    /** Header and a medium payload are copied here and sent with one write (libfabric's staging sbuf). */
    private final ByteBuffer txStage;
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

    /** The CQ's set this connection joins once idle (the first one offered), or null: always read directly. */
    private volatile QuietSet quietSet;
    /** This connection's key in {@link #quietSet}, once it has joined. */
    private SelectionKey quietKey;
    /** In the set: read only when {@link #woke} says something came, or on every {@link #QUIET_RECHECK}th call. */
    private boolean quiet;
    private volatile boolean woke;
    private int emptyReads;
    private int skippedReads;
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

    /** Large messages copied straight between jfabric processes of this host; null when off. */
    final TcpSameHost sameHost = TcpSameHost.open();

    TcpConnection(int prefetch) {
        // plain direct buffers: no memory session, so NIO adds no per-call bookkeeping (or garbage)
        this.stage = ByteBuffer.allocateDirect(Math.max(prefetch, 1024));
        this.stage.limit(0);
        this.txStage = ByteBuffer.allocateDirect(Math.max(prefetch, DataHeader.MAX_HDR_SIZE + TxEntry.INLINE_LIMIT));
        this.stageBase = SocketCalls.baseOf(stage);
        this.txStageBase = SocketCalls.baseOf(txStage);
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

    WireOrder order() {
        return order;
    }

    void setKey(SelectionKey key, TcpFabric fabric) {
        this.key = key;
        this.fabric = fabric;
        this.interest = -1;
    }

    /**
     * Looks the socket's descriptor up, once per open connection (two system calls for every descriptor of the
     * process: each connection of an rxm endpoint with thousands would pay it for a message or two, so it waits
     * until the connection is busy) and
     * moves the readiness probe from NIO's selector to poll(2) on it.
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

    // =================================================================== idle connections (QuietSet)

    /** Empty reads in a row after which a connection of a large CQ joins its {@link QuietSet}. */
    static final int QUIET_AFTER = 64;
    /**
     * A quiet connection is still read on every this many calls, whatever the set says: a pass that is not the
     * CQ's own (an EQ read waiting for the peer's shutdown) then notices end of stream within as many passes.
     */
    static final int QUIET_RECHECK = 256;

    void watchIdleIn(QuietSet set) {
        if (quietSet == null) {
            quietSet = set;
        }
    }

    /** Called by the set's poll (any thread): the socket has something to read. */
    void wake() {
        woke = true;
    }

    /**
     * A whole progress call may pass this connection by: it is quiet, its set saw nothing, and it is not time for
     * a re-check (which, like a wake, the read path's {@link #quietTurn} then takes).
     */
    boolean skipIdlePass() {
        if (!quiet || woke || skippedReads + 1 >= QUIET_RECHECK) {
            return false;
        }
        skippedReads++;
        return true;
    }

    /** Whether a quiet connection reads now: the set saw data, or it is time for a re-check. */
    private boolean quietTurn() {
        if (woke) {
            woke = false;
            skippedReads = 0;
            return true;
        }
        if (++skippedReads >= QUIET_RECHECK) {
            skippedReads = 0;
            return true;
        }
        return false;
    }

    private void enterQuiet() {
        QuietSet set = quietSet;
        try {
            SelectionKey k = quietKey;
            if (k == null) {
                quietKey = set.watch(ch, this);
            } else {
                k.interestOps(SelectionKey.OP_READ);
            }
            quiet = true;
            woke = false;
            skippedReads = 0;
        } catch (IOException | RuntimeException e) {
            // the CQ closed its set, or the channel is closing: keep reading directly
            quietSet = null;
        }
        emptyReads = 0;
    }

    private void leaveQuiet() {
        quiet = false;
        try {
            quietKey.interestOps(0);
        } catch (RuntimeException e) {
            // cancelled: the set or the channel closed
        }
    }

    boolean isQuiet() {
        return quiet;
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
        if (quiet && !quietTurn()) {
            return false;
        }
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

    // =================================================================== reading

    /**
     * Reads from the socket once the last read filled its buffer or the probe says data (or end of stream)
     * is there; returns 0 without a read otherwise. A short read means the socket is drained for now.
     */
    int socketRead(ByteBuffer dst) throws IOException {
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
            if (quiet) {
                leaveQuiet();
            }
            emptyReads = 0;
        } else if (n == 0 && !quiet && quietSet != null && ++emptyReads >= QUIET_AFTER) {
            enterQuiet();
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

    /** Reads up to capacity into the prefetch buffer; returns bytes read, or -1 at end of stream. */
    int fillStage() throws IOException {
        if (open && skipStageRead) {
            skipStageRead = false;
            if (!woke) {
                return 0;
            }
        }
        if (open && !readable && !probeReadable()) {
            return 0; // nothing arrived: leave the buffer as it is
        }
        // usually every staged byte was consumed: clear() then does what compact() would, without its copy call
        if (stage.hasRemaining()) {
            stage.compact();
        } else {
            stage.clear();
        }
        int n;
        try {
            n = open ? socketRead(stage) : ch.read(stage);
        } finally {
            stage.flip();
        }
        return n;
    }

    boolean hasStaged() {
        return stage.hasRemaining();
    }

    /** The prefetch buffer holds as much as it can: reading on would buffer without bound. */
    boolean stageFull() {
        return stage.limit() == stage.capacity();
    }

    int staged() {
        return stage.remaining();
    }

    /** Drops up to {@code n} prefetched bytes; returns how many were dropped. */
    int skipStaged(long n) {
        int k = (int) Math.min(stage.remaining(), n);
        stage.position(stage.position() + k);
        return k;
    }

    /** Moves what fits of the prefetched bytes into {@code dst}; returns how many moved. */
    int copyFromStage(ByteBuffer dst) {
        int n = Math.min(stage.remaining(), dst.remaining());
        if (n == 0) {
            return 0;
        }
        int lim = stage.limit();
        stage.limit(stage.position() + n);
        dst.put(stage);
        stage.limit(lim);
        return n;
    }

    // =================================================================== writing

    /** Copies header and payload into the staging buffer when they fit, so they leave in one write. */
    void stageIfSmall(TxEntry e) {
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

    /** Bytes one batch of small frames may hold ({@link #beginBatch}). */
    int batchCapacity() {
        return txStage.capacity();
    }

    /**
     * Starts a staging buffer that holds several small frames, {@code first}'s (no larger than
     * {@link #batchCapacity}) at its head, so that a backlog leaves in one write instead of one per frame.
     */
    void beginBatch(TxEntry first) {
        txStage.clear();
        putFrame(first);
    }

    /** Appends {@code e}'s whole frame to the batch when it fits; false (nothing copied) when it does not. */
    boolean addToBatch(TxEntry e) {
        if (e.remaining > txStage.remaining()) {
            return false;
        }
        putFrame(e);
        return true;
    }

    /** The batch is complete: {@code first} now writes the whole staging buffer. */
    void endBatch(TxEntry first) {
        txStage.flip();
        for (int i = 1; i < first.bufCount; i++) {
            first.bufs[i] = null;
        }
        first.bufs[0] = txStage;
        first.bufCount = 1;
        first.remaining = txStage.remaining();
    }

    private void putFrame(TxEntry e) {
        for (int i = e.bufIndex; i < e.bufCount; i++) {
            txStage.put(e.bufs[i]);
        }
    }

    /** Writes what the socket takes of {@code e}; true when all of it is gone, false when the socket is full. */
    boolean write(TxEntry e) throws IOException {
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
                return false;
            }
        }
        // otherwise one buffer per write: NIO's gathering write allocates for buffers of
        // segments
        while (e.bufIndex < e.bufCount) {
            ByteBuffer b = e.bufs[e.bufIndex];
            socketWrites++;
            noteBusy();
            SocketCalls sc = calls;
            long n;
            if (sc == null) {
                n = ch.write(b);
            } else if (b == txStage) {
                n = sc.write(txStage, txStageBase);
            } else if (b == e.hdrView) {
                // a small frame (header and inlined payload in the entry's own buffer): write(2) on the
                // descriptor, as for the staging buffer, rather than NIO's channel write with its lock,
                // blocking-mode bookkeeping and buffer-session acquire on every message
                n = sc.write(b, e.hdr.address());
            } else {
                n = ch.write(b);
            }
            e.remaining -= n;
            if (b.hasRemaining()) {
                writeBlocked = true;
                return false;
            }
            e.bufIndex++;
        }
        return true;
    }

    /** Nothing is left to write: the socket need not be watched for room. */
    void writesDrained() {
        writeBlocked = false;
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

    // =================================================================== readiness

    /** Watches the socket for reading unless {@code starved}, and for room while a write is blocked. */
    void updateInterest(boolean starved) {
        SelectionKey k = key;
        if (k == null) {
            return;
        }
        int want = 0;
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

    // =================================================================== close

    /** The peer as util's Sockaddr prints it ({@code fi_sockaddr_in://...}); "?" once the socket is closed. */
    String peerText() {
        try {
            return Sockaddr.straddr((InetSocketAddress) ch.getRemoteAddress());
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /** Ends the stream for good and closes the socket; false when it had already ended. */
    boolean end() {
        if (ended) {
            return false;
        }
        ended = true;
        open = false;
        closeChannel();
        return true;
    }

    private void closeChannel() {
        if (sameHost != null) {
            sameHost.close();
        }
        pollFirst = false;
        quiet = false;
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
            SelectionKey q = quietKey;
            if (q != null) {
                // the descriptor is released once every selector it joined has dropped its key
                quietKey = null;
                TcpFabric.flushCancelledKeys(q.selector());
            }
        }
    }

    /** Short state dump for test failure messages. */
    String describe() {
        return "open=" + open + ", order=" + order + ", staged=" + stage.remaining() + ", writes " + socketWrites
                + (sameHost == null ? "" : ", " + sameHost);
    }
}
