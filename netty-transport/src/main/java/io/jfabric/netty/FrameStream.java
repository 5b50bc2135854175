package io.jfabric.netty;

import io.jfabric.Errno;
import io.jfabric.MemoryRegion;
import io.jfabric.netty.FrameLink.RxSlot;
import io.jfabric.netty.FrameLink.TxSlot;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;

/**
 * One direction-pair of the stream protocol over a {@link FrameLink} (wire layout in {@link Frame}): sequence
 * checks, the credit window, and the queue of received frames the pipeline has not taken yet. It never touches
 * Netty's pipeline; it tells its {@link Listener}.
 *
 * <p>Flow control: the receiver keeps {@code window} slots for DATA plus {@link Frame#CONTROL_SLOTS}. A sender
 * spends one credit per DATA frame and stops at zero; the receiver grants a slot back when the pipeline has taken
 * all of its bytes, on its next frame or, once half a window is owed, in a CREDIT frame. A reader that stops
 * reading therefore stops its writer, and the writer's unsent bytes stay in Netty's outbound buffer, where they
 * turn the channel unwritable at the high water mark.
 */
final class FrameStream implements FrameLink.Sink {
    /** What the stream tells its channel. */
    interface Listener {
        /** The client's handshake finished: the accepting endpoint's name and its slot size. */
        void accepted(byte[] peerName, int peerWindow, int peerSlotSize);

        /** DATA or FIN is waiting in {@link #peekInbound()}. */
        void inboundReady();

        /** Credit or a transmit slot came back after a send was refused. */
        void writable();

        /** The stream is broken (malformed frame, failed peer, failed send); the channel must close. */
        void broken(IOException cause);
    }

    /**
     * How often a stream over a provider that reports no peer failure probes a peer it has not heard from
     * ({@link #probe}); so a dead peer is found within about two of these.
     */
    static final long PROBE_INTERVAL_MILLIS = 1000;
    /**
     * A probe that has not completed in this long, or that the provider has refused (EAGAIN) for this long, means
     * the peer is gone: native ofi_rxm answers EAGAIN to every send to a killed peer (each starts a connect that is
     * refused), and native shm leaves such a send pending.
     */
    static final long PROBE_TIMEOUT_NANOS = 5_000_000_000L;
    private static final int MAX_UNANSWERED = 2;
    /** Completion polls a stream makes at most, when its peer is reported gone, to take what the peer sent first. */
    private static final int DRAIN_POLLS = 64;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    final FrameLink link;
    private final Listener listener;
    private final int window;
    private final ArrayDeque<RxSlot> inbound;
    /**
     * Frames that completed ahead of an earlier one, by sequence modulo the slot count. Receives match in the order
     * they were posted (FI_ORDER_SAS), but a provider may complete a large one (shm's CMA or pull) after a small
     * one behind it; the stream still takes them in sequence.
     */
    private final RxSlot[] ahead;
    private long peer = -1;
    private String peerText = "?";
    private int sendSeq;
    private int recvSeq;
    private int sendCredit;
    private int grant;
    private int maxFrame;
    private boolean creditPending;
    private short finPending = -1;
    private boolean blocked;
    /** The peer closed the whole channel (FIN with FLAG_CLOSED arrived): it reads nothing more. */
    boolean peerClosed;
    private byte handshakeType;
    private long handshakeDest;
    /** The link the handshake leaves from: the stream's own, or a client's {@link Dialer}'s. */
    private FrameLink handshakeLink;
    /** When a closed channel's stream stops waiting for its last sends ({@link JfabricIoHandler#linger}). */
    long lingerDeadline;
    /** The channel has closed and the stream only finishes its last sends. */
    boolean lingering;
    /** Something arrived from the peer since the last {@link #probe}. */
    private boolean heard;
    /** Probes sent since the peer was last heard; a peer that stopped polling gets no more than {@link #MAX_UNANSWERED}. */
    private int unanswered;
    /** The probe in flight, or null; when it was sent. */
    private TxSlot probe;
    private long probeSentAt;
    /** When the provider began refusing probes with EAGAIN, or {@link #NOT_REFUSED}. */
    private long probesRefusedSince = NOT_REFUSED;
    private static final long NOT_REFUSED = Long.MIN_VALUE;

    FrameStream(FrameLink link, int window, Listener listener) {
        this.link = link;
        this.window = window;
        this.listener = listener;
        this.inbound = new ArrayDeque<>(rxSlots(window));
        this.ahead = new RxSlot[rxSlots(window)];
        this.maxFrame = link.slotSize;
    }

    /** The rx slots a link of this window needs. */
    static int rxSlots(int window) {
        return window + Frame.CONTROL_SLOTS;
    }

    /** The spare rx slots a link of this window keeps for frames the pipeline holds on to ({@link LentSlots}). */
    static int spareSlots(int window) {
        return Math.max(1, window / 2);
    }

    /** Sets the peer this stream talks to, with what its handshake said. */
    void peer(byte[] name, int peerWindow, int peerSlotSize) {
        peer = link.insert(name);
        link.watch(peer);
        peerText = link.straddr(name);
        sendCredit = peerWindow;
        maxFrame = Math.min(link.slotSize, peerSlotSize);
    }

    /** The peer's endpoint vanished before it could be inserted: nothing can be sent to it. */
    void peerGone(byte[] name) {
        peer = -1;
        peerText = new String(name, java.nio.charset.StandardCharsets.ISO_8859_1).strip();
        peerClosed = true;
    }

    String peerText() {
        return peerText;
    }

    /** The receiving side of an accepted stream has already seen the client's CONNECT (sequence 0). */
    void connectSeen() {
        recvSeq = 1;
    }

    /**
     * Sends CONNECT to {@code dest} (client) or ACCEPT to the peer ({@code dest} -1, accepting side); while the
     * provider answers EAGAIN (ofi_rxm connecting on demand) it is retried on each poll. Returns 0, or a negative
     * errno the provider gave for good.
     */
    int sendHandshake(byte type, long dest) {
        return sendHandshake(type, dest, link);
    }

    /** Whether a CONNECT or ACCEPT waits to be sent (the provider refused it with EAGAIN, or had no slot for it). */
    boolean handshakePending() {
        return handshakeType != 0;
    }

    /** Sends CONNECT from {@code dialer}'s endpoint, naming this stream's: the accepted side answers here. */
    int sendConnect(Dialer dialer) {
        return sendHandshake(Frame.CONNECT, dialer.server, dialer.link());
    }

    private int sendHandshake(byte type, long dest, FrameLink via) {
        handshakeType = type;
        handshakeDest = dest == -1 ? peer : dest;
        handshakeLink = via;
        int rc = trySendHandshake();
        return rc == -Errno.EAGAIN ? 0 : rc;
    }

    private int trySendHandshake() {
        FrameLink via = handshakeLink;
        TxSlot slot = via.takeTx();
        if (slot == null) {
            return -Errno.EAGAIN;
        }
        byte[] name = link.name();
        MemorySegment m = slot.memory;
        Frame.write(m, handshakeType, (short) 0, sendSeq, window, 4 + name.length);
        m.set(U32, Frame.HEADER, link.slotSize);
        MemorySegment.copy(name, 0, m, ValueLayout.JAVA_BYTE, Frame.HEADER + 4, name.length);
        int rc = via.send(slot, Frame.HEADER + 4 + name.length, handshakeDest);
        if (rc != 0) {
            via.giveBack(slot);
            return rc;
        }
        handshakeType = 0;
        sendSeq++;
        return 0;
    }

    long peerAddress() {
        return peer;
    }

    /** Largest payload of one DATA frame. */
    int maxPayload() {
        return maxFrame - Frame.HEADER;
    }

    /** A transmit slot for a DATA frame when credit allows, else null (and the stream remembers to say writable). */
    TxSlot takeDataSlot() {
        TxSlot slot = sendCredit > 0 && handshakeType == 0 ? link.takeTx() : null;
        if (slot == null) {
            blocked = true;
        }
        return slot;
    }

    /**
     * Sends a DATA frame whose {@code length} payload bytes were copied into {@code slot} after the header; 0, or a
     * negative errno with the slot given back.
     */
    int sendCopied(TxSlot slot, int length) {
        Frame.write(slot.memory, Frame.DATA, (short) 0, sendSeq, takeGrant(), length);
        int rc = link.send(slot, Frame.HEADER + length, peer);
        return afterDataSend(slot, rc);
    }

    /**
     * Sends a DATA frame whose payload is the {@code prefix} bytes copied into {@code slot} after the header, then
     * {@code length} bytes in the {@code parts} buffers put in {@code slot.iov} from index 1, read in place
     * (registered in {@code registration} of the loop's cache, or -1 where the provider wants no descriptor);
     * {@code held} stays alive until it completes.
     */
    int sendInPlace(TxSlot slot, int prefix, int length, int parts, int registration, Object held) {
        Frame.write(slot.memory, Frame.DATA, (short) 0, sendSeq, takeGrant(), prefix + length);
        slot.held = held;
        slot.registration = registration;
        MemoryRegion desc = registration < 0 ? null : link.loop.registrations.region(registration);
        int rc = link.sendv(slot, prefix, parts, desc, peer);
        return afterDataSend(slot, rc);
    }

    private int afterDataSend(TxSlot slot, int rc) {
        if (rc != 0) {
            slot.held = null;
            link.giveBack(slot);
            return rc;
        }
        sendSeq++;
        sendCredit--;
        return 0;
    }

    private int takeGrant() {
        int g = grant;
        grant = 0;
        creditPending = false;
        return g;
    }

    /** Sends FIN (with {@link Frame#FLAG_CLOSED} when the whole channel closes), now or when a slot frees. */
    void sendFin(boolean closed) {
        finPending = closed ? Frame.FLAG_CLOSED : 0;
        flushControl();
    }

    boolean finSent() {
        return finPending == -1;
    }

    /** The oldest received DATA or FIN frame the pipeline has not finished, or null. */
    RxSlot peekInbound() {
        return inbound.peekFirst();
    }

    boolean hasInbound() {
        return !inbound.isEmpty();
    }

    /** The pipeline has taken all of the head frame: its slot goes back to the endpoint, and DATA earns a credit. */
    void releaseHead() {
        RxSlot slot = inbound.pollFirst();
        boolean data = Frame.type(slot.memory) == Frame.DATA;
        slot.consumed = 0;
        link.postRecv(slot);
        if (data) {
            granted();
        }
    }

    /**
     * The rest of the head DATA frame, in its own slot, for the pipeline to keep (a spare slot takes its place at
     * the endpoint, and the frame earns its credit now); null when no spare is free, and the caller copies instead.
     */
    SlotByteBuf lendHead() {
        RxSlot slot = inbound.peekFirst();
        RxSlot spare = link.lending.takeSpare();
        if (spare == null) {
            return null;
        }
        inbound.pollFirst();
        link.postRecv(spare);
        SlotByteBuf buf = link.lending.lend(slot, slot.consumed, (int) slot.received - Frame.HEADER);
        slot.consumed = 0;
        granted();
        return buf;
    }

    private void granted() {
        grant++;
        if (grant >= (window + 1) / 2) {
            creditPending = true;
            flushControl();
        }
    }

    /** Sends what control frames wait for a slot: FIN after a CREDIT owed, so the grant travels first. */
    void flushControl() {
        if (handshakeType != 0) {
            int rc = trySendHandshake();
            if (rc != 0 && rc != -Errno.EAGAIN) {
                listener.broken(new IOException("jfabric handshake to " + peerText + " failed: " + Errno.strerror(-rc)));
            }
            if (handshakeType != 0) {
                return;
            }
            wakeWriter();
        }
        if (creditPending && grant > 0) {
            TxSlot slot = link.takeTx();
            if (slot == null) {
                return;
            }
            int g = grant;
            Frame.write(slot.memory, Frame.CREDIT, (short) 0, sendSeq, g, 0);
            int rc = link.send(slot, Frame.HEADER, peer);
            if (rc != 0) {
                link.giveBack(slot);
                dropIfRefusedWhileLingering(rc);
                return;
            }
            sendSeq++;
            grant = 0;
            creditPending = false;
        }
        if (finPending != -1) {
            TxSlot slot = link.takeTx();
            if (slot == null) {
                return;
            }
            Frame.write(slot.memory, Frame.FIN, finPending, sendSeq, takeGrant(), 0);
            int rc = link.send(slot, Frame.HEADER, peer);
            if (rc != 0) {
                link.giveBack(slot);
                dropIfRefusedWhileLingering(rc);
                return;
            }
            sendSeq++;
            finPending = -1;
        }
    }

    /**
     * A closed channel's control frame (its FIN, a last CREDIT) refused for good, not EAGAIN: the peer cannot be
     * reached (ofi_rxm's connect to it refused, shm's endpoint gone), so nothing more is owed to it and the stream
     * stops lingering. Retrying on every poll until the linger deadline had ofi_rxm reconnect each time, thousands
     * of connects a second. An open channel keeps retrying, as a peer that half-closed may still read.
     */
    private void dropIfRefusedWhileLingering(int rc) {
        if (rc == -Errno.EAGAIN || !lingering) {
            return;
        }
        creditPending = false;
        grant = 0;
        finPending = -1;
    }

    /**
     * The channel has closed: the stream finishes its last sends until {@code deadline}. A CONNECT not yet sent is
     * owed to nobody now (the client closed before it connected), and it would go through the dialer, which closed
     * with the channel. A pending ACCEPT still goes, ahead of the FIN, from the stream's own endpoint.
     */
    void linger(long deadline) {
        lingerDeadline = deadline;
        lingering = true;
        if (handshakeType == Frame.CONNECT) {
            handshakeType = 0;
        }
    }

    int poll() {
        int work = link.poll(this);
        if (link.takeWatchedFailure()) {
            work += peerFailed();
        }
        if (creditPending || finPending != -1 || handshakeType != 0) {
            flushControl();
        }
        return work;
    }

    /**
     * The provider reported the peer gone. What it sent before it went is taken first; then, unless its closing FIN
     * was among it, the stream is broken. A closed channel's stream stops lingering for the FIN and CREDIT nobody
     * can receive now.
     */
    private int peerFailed() {
        for (int i = 0; i < DRAIN_POLLS && !peerClosed && link.poll(this) > 0; i++) {
            // the peer's last frames come before its failure: take them first
        }
        if (lingering) {
            creditPending = false;
            grant = 0;
            finPending = -1;
        } else if (!peerClosed) {
            listener.broken(new IOException("jfabric peer " + peerText + " failed: the provider found it gone"
                    + " (its process exited, or its endpoint or connection closed) before it closed the stream"));
        }
        return 1;
    }

    /** Whether this stream must {@link #probe} its peer: its provider reports no peer failure (the bridge's RDM ones). */
    boolean needsProbes() {
        return !link.reportsPeerFailure;
    }

    /**
     * Called every {@link #PROBE_INTERVAL_MILLIS} where {@link #needsProbes}: when nothing has come from the peer
     * since the last call, sends it a CREDIT frame (with whatever grant is owed), so that a peer that is gone is
     * found by the send failing, being refused, or never completing, even on a channel that only reads. A live
     * peer's own probes and frames keep this one quiet. {@code now} is {@link System#nanoTime}.
     */
    void probe(long now) {
        if (peer < 0 || peerClosed || lingering || handshakeType != 0) {
            return;
        }
        if (probe != null) {
            if (now - probeSentAt > PROBE_TIMEOUT_NANOS) {
                listener.broken(new IOException("jfabric peer " + peerText + " failed: a probe sent to it "
                        + (now - probeSentAt) / 1_000_000 + " ms ago has not completed"));
            }
            return;
        }
        if (heard || unanswered >= MAX_UNANSWERED) {
            heard = false;
            probesRefusedSince = NOT_REFUSED;
            return;
        }
        TxSlot slot = link.takeTx();
        if (slot == null) {
            return; // every slot is in flight: those sends will tell
        }
        Frame.write(slot.memory, Frame.CREDIT, (short) 0, sendSeq, grant, 0);
        int rc = link.send(slot, Frame.HEADER, peer);
        if (rc == -Errno.EAGAIN) {
            link.giveBack(slot);
            if (probesRefusedSince == NOT_REFUSED) {
                probesRefusedSince = now;
            } else if (now - probesRefusedSince > PROBE_TIMEOUT_NANOS) {
                listener.broken(new IOException("jfabric peer " + peerText + " failed: it has been unreachable for "
                        + (now - probesRefusedSince) / 1_000_000 + " ms (the provider refused every probe with EAGAIN)"));
            }
            return;
        }
        if (rc != 0) {
            link.giveBack(slot);
            listener.broken(new IOException("jfabric peer " + peerText + " failed: a probe to it was refused: "
                    + Errno.strerror(-rc) + " (errno " + -rc + ")"));
            return;
        }
        probesRefusedSince = NOT_REFUSED;
        sendSeq++;
        grant = 0;
        creditPending = false;
        unanswered++;
        probe = slot;
        probeSentAt = now;
    }

    @Override
    public void received(RxSlot slot) {
        heard = true;
        unanswered = 0;
        MemorySegment m = slot.memory;
        String why = Frame.malformed(m, slot.received);
        int distance = why == null ? Frame.seq(m) - recvSeq : 0;
        if (why == null && (distance < 0 || distance >= ahead.length || ahead[Integer.remainderUnsigned(Frame.seq(m), ahead.length)] != null)) {
            why = "frame " + Frame.seq(m) + " arrived where " + recvSeq + " was due (repeated or beyond the window)";
        }
        if (why != null) {
            link.postRecv(slot);
            listener.broken(new IOException("malformed stream from jfabric peer " + peerText + ": " + why));
            return;
        }
        ahead[Integer.remainderUnsigned(Frame.seq(m), ahead.length)] = slot;
        RxSlot next;
        while ((next = ahead[Integer.remainderUnsigned(recvSeq, ahead.length)]) != null) {
            ahead[Integer.remainderUnsigned(recvSeq, ahead.length)] = null;
            recvSeq++;
            take(next);
        }
    }

    private void take(RxSlot slot) {
        MemorySegment m = slot.memory;
        int credit = Frame.credit(m);
        if (credit > 0) {
            sendCredit += credit;
            wakeWriter();
        }
        switch (Frame.type(m)) {
            case Frame.DATA, Frame.FIN -> {
                if (Frame.type(m) == Frame.FIN && (Frame.flags(m) & Frame.FLAG_CLOSED) != 0) {
                    peerClosed = true;
                }
                inbound.addLast(slot);
                listener.inboundReady();
            }
            case Frame.ACCEPT -> {
                int peerSlot = m.get(U32, Frame.HEADER);
                byte[] name = m.asSlice(Frame.HEADER + 4, slot.received - Frame.HEADER - 4).toArray(ValueLayout.JAVA_BYTE);
                link.postRecv(slot);
                listener.accepted(name, credit, peerSlot);
            }
            case Frame.CREDIT -> link.postRecv(slot);
            default -> {
                link.postRecv(slot);
                listener.broken(new IOException("malformed stream from jfabric peer " + peerText
                        + ": a CONNECT frame on an established stream"));
            }
        }
    }

    @Override
    public void sent(TxSlot slot) {
        if (slot == probe) {
            probe = null;
        }
        Object held = slot.held;
        link.giveBack(slot);
        if (held != null) {
            io.netty.util.ReferenceCountUtil.safeRelease(held);
        }
        wakeWriter();
    }

    private void wakeWriter() {
        if (blocked) {
            blocked = false;
            listener.writable();
        }
    }

    @Override
    public void failed(Object context, int err, String why) {
        if (context instanceof TxSlot t) {
            sent(t);
        } else if (context instanceof RxSlot && (err == Errno.ECANCELED || peerClosed)) {
            // receives flushed as the endpoint or, after its closing FIN, the peer's connection goes
            return;
        }
        listener.broken(new IOException("jfabric peer " + peerText + " failed: " + why + " (errno " + err + ")"));
    }
}
