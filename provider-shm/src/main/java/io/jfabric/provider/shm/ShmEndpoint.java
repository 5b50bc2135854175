package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.EndpointOption;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.RmaMsg;
import io.jfabric.TaggedMsg;
import io.jfabric.Access;
import io.jfabric.util.TagMatcher;
import io.jfabric.util.UtilCompletionQueue;
import io.jfabric.util.UtilFabricObject;
import io.jfabric.util.UtilMemoryRegion;
import io.jfabric.provider.shm.ffi.Cma;
import io.jfabric.provider.shm.ffi.Futex;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * An shm RDM endpoint ({@code fi_endpoint}): owns a region whose ring receives every command sent to
 * it, and writes its own commands into its peers' rings.
 *
 * <p>Protocols, chosen per message by size (libfabric's {@code smr_select_proto}):
 * <ul>
 * <li>inline (&lt;= inline_size): the bytes travel in the ring command; the send completes at once;</li>
 * <li>bounce (&lt;= bounce_slot_size): the bytes go to a slot in the sender's own region, the command
 * names the slot and the receiver hands it back; the send completes at once;</li>
 * <li>CMA (larger): the command carries the sender's buffer address; the receiver copies it with one
 * process_vm_readv into the matched receive buffer and ACKs; the send completes on the ACK.</li>
 * </ul>
 * RMA commands carry key, target address and the initiator's buffer; the target checks key, access
 * and bounds against its MR map, copies with process_vm_readv/writev and ACKs with the status.
 *
 * <p>Data-path calls return 0 or a negative errno and allocate nothing once warm. At FI_THREAD_DOMAIN:
 * no locks unless the domain runs auto progress; at FI_THREAD_SAFE every call takes the domain lock.
 */
final class ShmEndpoint extends UtilFabricObject implements io.jfabric.Endpoint, RecordHandler {

    private static final System.Logger LOG = System.getLogger("jfabric.shm");
    private static final long LIVENESS_INTERVAL = TimeUnit.MILLISECONDS.toNanos(50);
    /**
     * A ring record claimed but not committed for this long (of polling time) is skipped when a sender this
     * domain knows has died, as it most likely claimed it. A live sender can be that slow too: a JVM that
     * links a VarHandle for the first time between its claim and its commit, on a loaded machine, takes
     * hundreds of milliseconds, and skipping its record would lose an already completed send.
     */
    private static final long UNBLOCK_AFTER = TimeUnit.MILLISECONDS.toNanos(500);
    /** ... and skipped anyway after this long, when no known sender died (one that never reached us did). */
    private static final long UNBLOCK_WITHOUT_DEAD_SENDER = TimeUnit.SECONDS.toNanos(10);
    private static final int READ_BATCH = 64;
    /** Ring payload lengths of the fixed-size commands, padded to whole cache lines (Wire.recordPayload). */
    private static final int COMMAND_RECORD = Wire.recordPayload(Wire.HEADER);
    private static final int RMA_RECORD = Wire.recordPayload(Wire.RMA_HEADER);
    private static final int ACK_QUEUE = 1024;
    private static final long DEFERRED_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    private final ShmDomain domain;
    private final FabricInfo info;
    private final ShmRegion region;
    private final MpscRing ring;
    private final Doorbell doorbell;
    private final Futex futex = new Futex();
    private final Cma cma = new Cma();
    private final Arena arena = Arena.ofShared();
    final long senderId;
    private final String address;
    private final int inlineSize;
    private final int slotSize;

    private ShmAddressVector av;
    private UtilCompletionQueue txCq;
    private UtilCompletionQueue rxCq;
    private boolean txSelective;
    private boolean enabled;
    /** Posted receives and unexpected messages (provider-util's matcher); each unexpected one's payload is an UnexpectedMessage. */
    private final TagMatcher matcher;
    private final int rxSize;
    private final UnexpectedMessage[] unexpectedPool;
    /** Queued messages that came before their sender's address was in the AV (at most: some may be gone). */
    private int unknownSources;
    private final java.util.function.ToLongFunction<TagMatcher.Unexpected> sourceOfUnexpected =
            u -> av.addrOfSender(((UnexpectedMessage) u.payload).senderId);
    private int unexpectedPoolFree;
    private final PendingOps pending;

    // ACKs that found the peer's ring full, retried by progress
    private final Peer[] ackPeer = new Peer[ACK_QUEUE];
    private final long[] ackOp = new long[ACK_QUEUE];
    private final int[] ackStatus = new int[ACK_QUEUE];
    private int ackHead;
    private int ackTail;

    // receives being pulled through bounce slots, and pulls this sender could not serve yet
    private static final int PULL_WINDOW = 4;
    private final PullState[] pulls;
    private final int[] pullFree;
    private int pullFreeCount;
    private int pullsActive;
    private final Peer[] retryPeer = new Peer[ACK_QUEUE];
    private final long[] retryOp = new long[ACK_QUEUE];
    private final long[] retryCookie = new long[ACK_QUEUE];
    private final long[] retryOffset = new long[ACK_QUEUE];
    private final long[] retryLength = new long[ACK_QUEUE];
    private int retryHead;
    private int retryTail;

    // inline/bounce sends waiting for the peer to consume their record: op ids in posting order (entries of
    // ops completed otherwise, e.g. failed by the liveness scan, are skipped when they reach the head)
    private final long[] deferred;
    private int deferredHead;
    private int deferredTail;

    // the last sender seen, so the receive path rarely touches the domain's maps
    private long lastSender = -1;
    private Peer lastSenderPeer;

    private long lastLivenessScan;
    /** When the stuck-head check last ran while the head was blocked (0: not blocked). */
    private long blockedSince;
    /**
     * How long the head has been seen blocked while this endpoint was polling: the gaps between two checks
     * count at most {@link #BLOCKED_GAP_CAP} each, so a consumer that was itself descheduled or paused (GC,
     * a loaded machine) does not mistake a live sender that was preempted mid-record for a dead one.
     */
    private long blockedFor;
    private static final long BLOCKED_GAP_CAP = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * Empty polls since the start; a stuck head (a sender that died mid-record) is looked for only every
     * {@link #HEAD_CHECK_EVERY} of them, because the check reads the ring's tail, a line every producer
     * writes, and polling it would cost a cache-line transfer per message.
     */
    private int emptyPolls;
    private int busyPolls;
    private static final int LIVENESS_CLOCK_EVERY = 64;
    private static final int HEAD_CHECK_EVERY = 1024;
    private long corruptDropped;

    ShmEndpoint(ShmDomain domain, FabricInfo info) {
        super("shm endpoint");
        this.domain = domain;
        this.info = info.copy();
        String name = ShmRegion.newName();
        this.region = ShmRegion.create(domain.directory, name, domain.layout);
        this.ring = region.ring();
        this.doorbell = new Doorbell(region);
        this.senderId = senderIdOf(name);
        this.address = ShmAddressVector.SCHEME + name;
        this.inlineSize = domain.inlineSize;
        this.slotSize = domain.layout.bounceSlotSize();
        int rxSize = (int) Math.max(16, info.rxAttr == null || info.rxAttr.size == 0 ? 1024 : info.rxAttr.size);
        int txSize = (int) Math.max(16, info.txAttr == null || info.txAttr.size == 0 ? 1024 : info.txAttr.size);
        this.rxSize = rxSize;
        int unexpected = Math.max(1, domain.unexpectedLimit);
        long caps = info.caps | (info.rxAttr == null ? 0 : info.rxAttr.caps);
        matcher = new TagMatcher(rxSize, unexpected, (caps & Caps.DIRECTED_RECV) != 0, 0);
        unexpectedPool = new UnexpectedMessage[unexpected];
        for (int i = 0; i < unexpected; i++) {
            unexpectedPool[i] = new UnexpectedMessage(arena.allocate(slotSize, 64));
        }
        unexpectedPoolFree = unexpected;
        pending = new PendingOps(txSize);
        deferred = new long[Integer.highestOneBit(txSize - 1) << 2]; // a power of two >= 2 x txSize
        pulls = new PullState[rxSize];
        pullFree = new int[rxSize];
        for (int i = 0; i < rxSize; i++) {
            pulls[i] = new PullState(i);
            pullFree[i] = rxSize - 1 - i;
        }
        pullFreeCount = rxSize;
    }

    /** The sender id encoded in a region name {@code jfabric-shm-<pid>-<start>-<seq>}, or -1. */
    static long senderIdOf(String name) {
        if (!name.startsWith(ShmRegion.PREFIX)) {
            return -1;
        }
        String[] parts = name.substring(ShmRegion.PREFIX.length()).split("-");
        if (parts.length != 3) {
            return -1;
        }
        try {
            return Wire.senderId(Long.parseLong(parts[0]), Integer.parseInt(parts[2]));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    // ---- control path ------------------------------------------------------------------------

    @Override
    public void bind(CompletionQueue cq, long flags) {
        checkOpen("bind a CQ to");
        if (!(cq instanceof UtilCompletionQueue ucq)) {
            throw new FabricException(Errno.EINVAL, "shm endpoints bind CQs opened from an shm domain");
        }
        if ((flags & (BindFlags.TRANSMIT | BindFlags.RECV)) == 0) {
            throw new FabricException(Errno.EINVAL, "bind a CQ with BindFlags.TRANSMIT and/or BindFlags.RECV");
        }
        if ((flags & BindFlags.TRANSMIT) != 0) {
            if (txCq != null) {
                throw new FabricException(Errno.EINVAL, "a transmit CQ is already bound");
            }
            ucq.acquire();
            txCq = ucq;
            txSelective = (flags & BindFlags.SELECTIVE_COMPLETION) != 0;
        }
        if ((flags & BindFlags.RECV) != 0) {
            if (rxCq != null) {
                throw new FabricException(Errno.EINVAL, "a receive CQ is already bound");
            }
            ucq.acquire();
            rxCq = ucq;
        }
    }

    @Override
    public void bind(EventQueue eq) {
        throw new FabricException(Errno.ENOSYS, "shm RDM endpoints raise no connection events; no EQ to bind");
    }

    @Override
    public void bind(AddressVector av) {
        checkOpen("bind an AV to");
        if (!(av instanceof ShmAddressVector sav)) {
            throw new FabricException(Errno.EINVAL, "shm endpoints bind AVs opened from an shm domain");
        }
        if (this.av != null) {
            throw new FabricException(Errno.EINVAL, "an AV is already bound");
        }
        sav.acquire();
        this.av = sav;
    }

    @Override
    public void bind(Counter counter, long flags) {
        throw new FabricException(Errno.ENOSYS, "shm has no counters yet; use completion queues");
    }

    @Override
    public void enable() {
        checkOpen("enable");
        if (av == null) {
            throw new FabricException(Errno.ENOAV, "bind an AV to the shm endpoint before enabling it");
        }
        if (txCq == null || rxCq == null) {
            throw new FabricException(Errno.ENOCQ, "bind CQs for TRANSMIT and RECV before enabling the shm endpoint");
        }
        enabled = true;
    }

    @Override
    public void connect(byte[] addr, byte[] data) {
        throw new FabricException(Errno.ENOSYS, "shm endpoints are FI_EP_RDM: insert the peer into the AV instead");
    }

    @Override
    public void accept(byte[] data) {
        throw new FabricException(Errno.ENOSYS, "shm endpoints are FI_EP_RDM: nothing to accept");
    }

    @Override
    public void shutdown(long flags) {
        throw new FabricException(Errno.ENOSYS, "shm endpoints are FI_EP_RDM: nothing to shut down");
    }

    @Override
    public byte[] getName() {
        return address.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void setName(byte[] addr) {
        throw new FabricException(Errno.ENOSYS, "shm endpoint names are chosen by the provider (unique per region)");
    }

    @Override
    public byte[] getPeer() {
        throw new FabricException(Errno.ENOTCONN, "shm endpoints are connectionless");
    }

    @Override
    public long getOpt(EndpointOption option) {
        return switch (option) {
            case MIN_MULTI_RECV -> matcher.minMultiRecv();
            case TX_SIZE -> pending.capacity();
            case RX_SIZE -> rxSize;
            default -> throw new FabricException(Errno.ENOPROTOOPT, "shm has no option " + option.cName());
        };
    }

    @Override
    public void setOpt(EndpointOption option, long value) {
        if (option != EndpointOption.MIN_MULTI_RECV || value < 0) {
            throw new FabricException(Errno.ENOPROTOOPT, "shm sets only FI_OPT_MIN_MULTI_RECV (>= 0)");
        }
        matcher.setMinMultiRecv(value);
    }

    @Override
    public int cancel(Object context) {
        lock();
        try {
            TagMatcher.Recv r = matcher.cancel(context);
            if (r == null) {
                return -Errno.ENOENT;
            }
            rxCq.writeError(true, r.context, flagsOf(r), 0, 0, 0, r.tagged ? r.tag : 0, 0, Errno.ECANCELED, 0, null);
            matcher.free(r);
            return 0;
        } finally {
            unlock();
        }
    }

    // ---- data path: sends ----------------------------------------------------------------------

    @Override
    public int send(MemorySegment buf, MemoryRegion desc, long destAddr, Object context) {
        return post(buf, destAddr, false, 0, 0, 0, context, defaultCompletion());
    }

    @Override
    public int senddata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, Object context) {
        return post(buf, destAddr, false, 0, data, Wire.FLAG_CQ_DATA, context, defaultCompletion());
    }

    @Override
    public int inject(MemorySegment buf, long destAddr) {
        return inject(buf, destAddr, false, 0, 0, 0);
    }

    @Override
    public int injectdata(MemorySegment buf, long data, long destAddr) {
        return inject(buf, destAddr, false, 0, data, Wire.FLAG_CQ_DATA);
    }

    @Override
    public int sendmsg(Msg msg, long flags) {
        if (msg == null || msg.iovCount != 1) {
            return -Errno.EINVAL;
        }
        int wflags = (flags & OpFlags.REMOTE_CQ_DATA) != 0 ? Wire.FLAG_CQ_DATA : 0;
        if ((flags & OpFlags.INJECT) != 0) {
            return inject(msg.iov[0], msg.addr, false, 0, msg.data, wflags);
        }
        return post(msg.iov[0], msg.addr, false, 0, msg.data, wflags, msg.context,
                !txSelective || (flags & OpFlags.COMPLETION) != 0);
    }

    @Override
    public int tsend(MemorySegment buf, MemoryRegion desc, long destAddr, long tag, Object context) {
        return post(buf, destAddr, true, tag, 0, Wire.FLAG_TAGGED, context, defaultCompletion());
    }

    @Override
    public int tsenddata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, long tag, Object context) {
        return post(buf, destAddr, true, tag, data, Wire.FLAG_TAGGED | Wire.FLAG_CQ_DATA, context, defaultCompletion());
    }

    @Override
    public int tinject(MemorySegment buf, long destAddr, long tag) {
        return inject(buf, destAddr, true, tag, 0, Wire.FLAG_TAGGED);
    }

    @Override
    public int tinjectdata(MemorySegment buf, long data, long destAddr, long tag) {
        return inject(buf, destAddr, true, tag, data, Wire.FLAG_TAGGED | Wire.FLAG_CQ_DATA);
    }

    @Override
    public int tsendmsg(TaggedMsg msg, long flags) {
        if (msg == null || msg.iovCount != 1) {
            return -Errno.EINVAL;
        }
        int wflags = Wire.FLAG_TAGGED | ((flags & OpFlags.REMOTE_CQ_DATA) != 0 ? Wire.FLAG_CQ_DATA : 0);
        if ((flags & OpFlags.INJECT) != 0) {
            return inject(msg.iov[0], msg.addr, true, msg.tag, msg.data, wflags);
        }
        return post(msg.iov[0], msg.addr, true, msg.tag, msg.data, wflags, msg.context,
                !txSelective || (flags & OpFlags.COMPLETION) != 0);
    }

    private int inject(MemorySegment buf, long dest, boolean tagged, long tag, long data, int wflags) {
        if (buf == null || buf.byteSize() > inlineSize) {
            return -Errno.EMSGSIZE;
        }
        return post(buf, dest, tagged, tag, data, wflags, null, false);
    }

    /**
     * Whether the plain (non-msg) calls generate a success completion: always, unless the CQ was bound
     * with FI_SELECTIVE_COMPLETION, then only if the endpoint's tx op_flags hold FI_COMPLETION.
     */
    private boolean defaultCompletion() {
        return !txSelective || info.txAttr == null || (info.txAttr.opFlags & OpFlags.COMPLETION) != 0;
    }

    private static long txFlags(boolean tagged) {
        return OpFlags.SEND | (tagged ? OpFlags.TAGGED : OpFlags.MSG);
    }

    /** Every send form ends here. {@code complete}: write a success completion (not for inject). */
    private int post(MemorySegment buf, long dest, boolean tagged, long tag, long data, int wflags, Object context,
                     boolean complete) {
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        if (buf == null) {
            return -Errno.EINVAL;
        }
        lock();
        try {
            Peer peer = av.peer(dest);
            if (peer == null) {
                return -Errno.EINVAL;
            }
            if (peer.goneForSend()) {
                return -Errno.ECONNRESET;
            }
            long len = buf.byteSize();
            if (len <= inlineSize) {
                return postInline(peer, buf, (int) len, tag, data, wflags, context, complete, tagged);
            }
            if (len <= slotSize) {
                return postBounce(peer, buf, (int) len, tag, data, wflags, context, complete, tagged);
            }
            return postCma(peer, buf, len, tag, data, wflags, context, complete, tagged);
        } finally {
            unlock();
        }
    }

    private int full(Peer peer) {
        return peer.checkAlive(System.nanoTime(), LIVENESS_INTERVAL) ? -Errno.ECONNRESET : -Errno.EAGAIN;
    }

    private int postInline(Peer peer, MemorySegment buf, int len, long tag, long data, int wflags, Object context,
                           boolean complete, boolean tagged) {
        PendingOp op = null;
        if (complete && (op = reserveDeferred()) == null) {
            return -Errno.EAGAIN;
        }
        MpscRing r = peer.ring;
        int recordLength = Wire.recordPayload(Wire.INLINE_HEADER + len);
        long position = r.claim(recordLength);
        if (position == MpscRing.FULL) {
            cancelDeferred(op);
            return full(peer);
        }
        long at = r.payloadOffset(position);
        MemorySegment s = r.buffer();
        // the payload first, then the command header and the ring header right behind it: the record's first
        // line, which the receiver polls, is written in one burst with the position last (MpscRing.claim)
        MemorySegment.copy(buf, 0, s, at + Wire.INLINE_HEADER, len);
        Wire.putLong(s, at + Wire.SENDER, senderId);
        Wire.putLong(s, at + Wire.TAG, tag);
        Wire.putLong(s, at + Wire.DATA, data);
        Wire.putInt(s, at + Wire.FLAGS, wflags);
        Wire.putInt(s, at + Wire.INLINE_LENGTH, len);
        if (op != null) {
            deferUntilConsumed(op, peer, MpscRing.endOf(position, recordLength), context, txFlags(tagged), len);
        }
        r.publish(position, Wire.INLINE, recordLength);
        peer.doorbell.ring();
        return 0;
    }

    private int postBounce(Peer peer, MemorySegment buf, int len, long tag, long data, int wflags, Object context,
                           boolean complete, boolean tagged) {
        BouncePool pool = region.bouncePool();
        int slot = pool.acquire(peer.senderId == -1 ? 1 : peer.senderId);
        if (slot < 0) {
            return -Errno.EAGAIN;
        }
        PendingOp op = null;
        if (complete && (op = reserveDeferred()) == null) {
            pool.release(slot);
            return -Errno.EAGAIN;
        }
        MpscRing r = peer.ring;
        long at = r.tryClaim(Wire.BOUNCE, COMMAND_RECORD);
        if (at == MpscRing.FULL) {
            pool.release(slot);
            cancelDeferred(op);
            return full(peer);
        }
        MemorySegment.copy(buf, 0, pool.segment(), pool.slotOffset(slot), len);
        MemorySegment s = r.buffer();
        writeHeader(s, at, tag, data, wflags, len, 0, slot);
        if (op != null) {
            deferUntilConsumed(op, peer, r.endPosition(at), context, txFlags(tagged), len);
        }
        r.commit(at);
        peer.doorbell.ring();
        return 0;
    }

    /*
     * Inline and bounce sends that ask for a completion complete when the peer's ring head has passed
     * their record, i.e. the peer has taken the message (matched it, or queued it as unexpected). Until
     * then they hold a PendingOp, so a peer that dies first fails them with ECONNRESET from the liveness
     * scan instead of the message being lost after a success completion.
     */

    /** A CQ slot and a PendingOp for a send that completes on consumption; null: answer EAGAIN. */
    private PendingOp reserveDeferred() {
        if (deferredTail - deferredHead == deferred.length || !txCq.tryReserve()) {
            return null;
        }
        PendingOp op = pending.acquire();
        if (op == null) {
            txCq.cancelReservation();
        }
        return op;
    }

    private void cancelDeferred(PendingOp op) {
        if (op != null) {
            pending.release(op);
            txCq.cancelReservation();
        }
    }

    private void deferUntilConsumed(PendingOp op, Peer peer, long ringEnd, Object context, long flags, long len) {
        op.context = context;
        op.completionFlags = flags;
        op.length = len;
        op.buffer = 0;
        op.peer = peer;
        op.reserved = true;
        op.segment = null;
        op.ringEnd = ringEnd;
        deferred[deferredTail++ & (deferred.length - 1)] = op.id();
    }

    /** Completes, in posting order, the deferred sends whose records the peers have consumed. */
    private int completeConsumed() {
        int n = 0;
        while (deferredHead != deferredTail) {
            PendingOp op = pending.find(deferred[deferredHead & (deferred.length - 1)]);
            if (op != null && op.ringEnd >= 0) {
                if (!op.peer.ring.consumed(op.ringEnd)) {
                    break;
                }
                completeOp(op, 0);
                n++;
            }
            deferredHead++;
        }
        return n;
    }

    private int postCma(Peer peer, MemorySegment buf, long len, long tag, long data, int wflags, Object context,
                        boolean complete, boolean tagged) {
        boolean pull = !peer.cmaWorks || !buf.isNative();
        if (complete && !txCq.tryReserve()) {
            return -Errno.EAGAIN;
        }
        PendingOp op = pending.acquire();
        if (op == null) {
            if (complete) {
                txCq.cancelReservation();
            }
            return -Errno.EAGAIN;
        }
        MpscRing r = peer.ring;
        long at = r.tryClaim(pull ? Wire.RTS : Wire.CMA, COMMAND_RECORD);
        if (at == MpscRing.FULL) {
            pending.release(op);
            if (complete) {
                txCq.cancelReservation();
            }
            return full(peer);
        }
        op.context = context;
        op.completionFlags = txFlags(tagged);
        op.length = len;
        op.buffer = 0;
        op.peer = peer;
        op.reserved = complete;
        op.segment = pull ? buf : null; // the receiver pulls it chunk by chunk; keep it until the ACK
        writeHeader(r.buffer(), at, tag, data, wflags, len, op.id(), pull ? 0 : buf.address());
        r.commit(at);
        peer.doorbell.ring();
        return 0;
    }

    private void writeHeader(MemorySegment s, long at, long tag, long data, int wflags, long len, long opId,
                             long address) {
        Wire.putLong(s, at + Wire.SENDER, senderId);
        Wire.putLong(s, at + Wire.TAG, tag);
        Wire.putLong(s, at + Wire.DATA, data);
        Wire.putInt(s, at + Wire.FLAGS, wflags);
        Wire.putInt(s, at + Wire.STATUS, 0);
        Wire.putLong(s, at + Wire.LENGTH, len);
        Wire.putLong(s, at + Wire.OP_ID, opId);
        Wire.putLong(s, at + Wire.ADDRESS, address);
    }

    // ---- data path: RMA ------------------------------------------------------------------------

    @Override
    public int read(MemorySegment buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        return postRma(Wire.RMA_READ, buf, srcAddr, addr, key, context, defaultCompletion());
    }

    @Override
    public int write(MemorySegment buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        return postRma(Wire.RMA_WRITE, buf, destAddr, addr, key, context, defaultCompletion());
    }

    @Override
    public int writedata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                         Object context) {
        return postRma(Wire.RMA_WRITE, buf, destAddr, addr, key, context, defaultCompletion(), true, data);
    }

    @Override
    public int readmsg(RmaMsg msg, long flags) {
        if (msg == null || msg.iovCount != 1 || msg.rmaIovCount != 1 || msg.rmaIov[0].len != msg.iov[0].byteSize()) {
            return -Errno.EINVAL;
        }
        return postRma(Wire.RMA_READ, msg.iov[0], msg.addr, msg.rmaIov[0].addr, msg.rmaIov[0].key, msg.context,
                !txSelective || (flags & OpFlags.COMPLETION) != 0);
    }

    @Override
    public int writemsg(RmaMsg msg, long flags) {
        if (msg == null || msg.iovCount != 1 || msg.rmaIovCount != 1 || msg.rmaIov[0].len != msg.iov[0].byteSize()) {
            return -Errno.EINVAL;
        }
        return postRma(Wire.RMA_WRITE, msg.iov[0], msg.addr, msg.rmaIov[0].addr, msg.rmaIov[0].key, msg.context,
                !txSelective || (flags & OpFlags.COMPLETION) != 0, (flags & OpFlags.REMOTE_CQ_DATA) != 0, msg.data);
    }

    private int postRma(int type, MemorySegment buf, long dest, long addr, long key, Object context,
                        boolean complete) {
        return postRma(type, buf, dest, addr, key, context, complete, false, 0);
    }

    /** {@code hasData}: an RMA write whose target reports {@code data} as remote CQ data (fi_writedata). */
    private int postRma(int type, MemorySegment buf, long dest, long addr, long key, Object context,
                        boolean complete, boolean hasData, long data) {
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        if (buf == null || !buf.isNative()) {
            return -Errno.EINVAL; // the target copies straight into/out of this buffer with CMA
        }
        lock();
        try {
            Peer peer = av.peer(dest);
            if (peer == null) {
                return -Errno.EINVAL;
            }
            if (peer.goneForSend()) {
                return -Errno.ECONNRESET;
            }
            if (!peer.cmaWorks) {
                return -Errno.EOPNOTSUPP;
            }
            if (complete && !txCq.tryReserve()) {
                return -Errno.EAGAIN;
            }
            PendingOp op = pending.acquire();
            if (op == null) {
                if (complete) {
                    txCq.cancelReservation();
                }
                return -Errno.EAGAIN;
            }
            MpscRing r = peer.ring;
            long at = r.tryClaim(type, RMA_RECORD);
            if (at == MpscRing.FULL) {
                pending.release(op);
                if (complete) {
                    txCq.cancelReservation();
                }
                return full(peer);
            }
            op.context = context;
            op.completionFlags = OpFlags.RMA | (type == Wire.RMA_READ ? OpFlags.READ : OpFlags.WRITE);
            op.length = buf.byteSize();
            op.peer = peer;
            op.reserved = complete;
            MemorySegment s = r.buffer();
            writeHeader(s, at, 0, data, hasData ? Wire.FLAG_CQ_DATA : 0, buf.byteSize(), op.id(), addr);
            Wire.putLong(s, at + Wire.KEY, key);
            Wire.putLong(s, at + Wire.LOCAL_ADDRESS, buf.address());
            r.commit(at);
            peer.doorbell.ring();
            return 0;
        } finally {
            unlock();
        }
    }

    // ---- data path: receives -------------------------------------------------------------------

    @Override
    public int recv(MemorySegment buf, MemoryRegion desc, long srcAddr, Object context) {
        return postReceive(buf, srcAddr, false, 0, 0, context, false);
    }

    @Override
    public int recvmsg(Msg msg, long flags) {
        if (msg == null || msg.iovCount != 1) {
            return -Errno.EINVAL;
        }
        return postReceive(msg.iov[0], msg.addr, false, 0, 0, msg.context, (flags & OpFlags.MULTI_RECV) != 0);
    }

    @Override
    public int trecv(MemorySegment buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object context) {
        return postReceive(buf, srcAddr, true, tag, ignore, context, false);
    }

    @Override
    public int trecvmsg(TaggedMsg msg, long flags) {
        if (msg == null || msg.iovCount != 1) {
            return -Errno.EINVAL;
        }
        if ((flags & (OpFlags.PEEK | OpFlags.CLAIM | OpFlags.DISCARD)) != 0) {
            return -Errno.EOPNOTSUPP;
        }
        return postReceive(msg.iov[0], msg.addr, true, msg.tag, msg.ignore, msg.context, false);
    }

    private int postReceive(MemorySegment buf, long src, boolean tagged, long tag, long ignore, Object context,
                            boolean multi) {
        if (!enabled) {
            return -Errno.EOPBADSTATE;
        }
        if (buf == null) {
            return -Errno.EINVAL;
        }
        lock();
        try {
            TagMatcher.Recv r = matcher.newRecv();
            if (r == null) {
                return -Errno.EAGAIN;
            }
            // the CQ slot for this receive's completion is promised now, so delivery can never overrun it
            if (!rxCq.tryReserve()) {
                matcher.free(r);
                return -Errno.EAGAIN;
            }
            r.buffer = buf;
            r.length = buf.byteSize();
            r.context = context;
            r.tagged = tagged;
            r.src = src;
            r.tag = tagged ? tag : 0;
            r.ignore = tagged ? ignore : 0;
            r.flags = multi && !tagged ? OpFlags.MULTI_RECV : 0;
            if (unknownSources > 0 && src != Fabrics.ADDR_UNSPEC) {
                unknownSources = matcher.resolveUnknownSources(sourceOfUnexpected);
            }
            // messages that arrived first are delivered now (a multi-receive buffer may take several)
            TagMatcher.Unexpected u;
            while ((u = matcher.takeUnexpected(tagged, r.tag, r.ignore, src)) != null) {
                boolean taken = deliverUnexpected(r, u);
                freeUnexpected(u);
                if (taken) {
                    return 0;
                }
            }
            matcher.post(r);
            return 0;
        } finally {
            unlock();
        }
    }

    private void freeUnexpected(TagMatcher.Unexpected u) {
        UnexpectedMessage m = (UnexpectedMessage) u.payload;
        m.clear();
        unexpectedPool[unexpectedPoolFree++] = m;
        matcher.free(u);
    }

    private static long flagsOf(TagMatcher.Recv r) {
        return OpFlags.RECV | (r.tagged ? OpFlags.TAGGED : OpFlags.MSG);
    }

    // ---- progress ------------------------------------------------------------------------------

    /** Drains the ring, retries ACKs, checks peers' liveness. Returns the work done. */
    int progress() {
        if (isClosed()) {
            return 0;
        }
        int work = 0;
        if (deferredHead != deferredTail) {
            // before reading the ring: an ACK in it may be for a send posted after these
            work += completeConsumed();
        }
        work += ring.read(this, READ_BATCH);
        if (ackHead != ackTail) {
            work += flushAcks();
        }
        if (retryHead != retryTail) {
            work += flushPullRetries();
        }
        if (pullsActive > 0) {
            work += resumeBlockedPulls();
        }
        long now = 0;
        // the clock (about 25 ns) is read on every 64th poll only: a sender spinning on its CQ for an ACK
        // or a consumed record must not pay it per poll; the scan is due every 50 ms anyway
        if ((pending.inFlight() > 0 || pullsActive > 0) && (++busyPolls & (LIVENESS_CLOCK_EVERY - 1)) == 0) {
            now = System.nanoTime();
            if (now - lastLivenessScan > LIVENESS_INTERVAL) {
                lastLivenessScan = now;
                work += failOpsToDeadPeers(now);
            }
        }
        if (work != 0) {
            blockedSince = 0;
        } else if ((++emptyPolls & (HEAD_CHECK_EVERY - 1)) == 0) {
            if (!ring.headBlocked()) {
                blockedSince = 0;
            } else {
                if (now == 0) {
                    now = System.nanoTime();
                }
                if (blockedSince == 0) {
                    blockedFor = 0;
                } else {
                    blockedFor += Math.min(now - blockedSince, BLOCKED_GAP_CAP);
                }
                blockedSince = now;
                if (blockedFor > UNBLOCK_AFTER
                        && (blockedFor > UNBLOCK_WITHOUT_DEAD_SENDER || domain.aKnownPeerDied(now, LIVENESS_INTERVAL))) {
                    // a sender died between claiming ring space and committing it: skip its record
                    if (ring.unblock()) {
                        LOG.log(System.Logger.Level.WARNING, "shm endpoint {0}: skipped a ring record a sender "
                                + "claimed but never finished in {1} ms of polling (it probably died)", address,
                                blockedFor / 1_000_000);
                    }
                    blockedSince = 0;
                }
            }
        }
        return work;
    }

    private int failOpsToDeadPeers(long now) {
        int n = 0;
        for (int i = 0; i < pulls.length && pullsActive > 0; i++) {
            PullState p = pulls[i];
            if (p.busy && p.peer.checkAlive(now, LIVENESS_INTERVAL)) {
                finishPull(p, Errno.ECONNRESET);
                n++;
            }
        }
        for (int i = 0; i < pending.capacity(); i++) {
            PendingOp op = pending.at(i);
            if (op.busy && op.peer != null && op.peer.checkAlive(now, LIVENESS_INTERVAL)) {
                // a deferred send the peer took just before it went away was delivered
                completeOp(op, op.ringEnd >= 0 && op.peer.ring.consumed(op.ringEnd) ? 0 : Errno.ECONNRESET);
                n++;
            }
        }
        return n;
    }

    /** RecordHandler: one command from a peer. Returns false to leave it in the ring for later. */
    @Override
    public boolean onRecord(int type, MemorySegment s, long at, int length) {
        switch (type) {
            case Wire.PULL -> {
                if (length < Wire.HEADER) {
                    return dropCorrupt(type, length);
                }
                return onPull(s, at);
            }
            case Wire.CHUNK -> {
                if (length < Wire.HEADER) {
                    return dropCorrupt(type, length);
                }
                return onData(s, at, length);
            }
            case Wire.INLINE -> {
                if (length < Wire.INLINE_HEADER) {
                    return dropCorrupt(type, length);
                }
                return onMessage(type, s, at, length);
            }
            case Wire.BOUNCE, Wire.CMA, Wire.RTS -> {
                if (length < Wire.HEADER) {
                    return dropCorrupt(type, length);
                }
                return onMessage(type, s, at, length);
            }
            case Wire.ACK -> {
                if (length < Wire.HEADER) {
                    return dropCorrupt(type, length);
                }
                PendingOp op = pending.find(Wire.getLong(s, at + Wire.OP_ID));
                if (op != null && op.ringEnd < 0) {
                    completeOp(op, Wire.getInt(s, at + Wire.STATUS));
                }
                return true;
            }
            case Wire.RMA_READ, Wire.RMA_WRITE -> {
                if (length < Wire.RMA_HEADER) {
                    return dropCorrupt(type, length);
                }
                return onRma(type, s, at);
            }
            default -> {
                return dropCorrupt(type, length);
            }
        }
    }

    @Override
    public void onCorruptRecord(long position, int length) {
        corruptDropped++;
        LOG.log(System.Logger.Level.WARNING, "shm endpoint {0}: dropped a corrupt ring record at position {1} "
                + "(length {2})", address, position, length);
    }

    private boolean dropCorrupt(int type, int length) {
        corruptDropped++;
        LOG.log(System.Logger.Level.WARNING, "shm endpoint {0}: dropped a corrupt command (type {1}, length {2})",
                address, type, length);
        return true;
    }

    /** Commands dropped as corrupt (ring headers and command bodies). */
    long corruptDropped() {
        return corruptDropped;
    }

    private Peer sender(long id) {
        if (id == lastSender) {
            return lastSenderPeer;
        }
        Peer p = domain.peerBySender(id);
        lastSender = id;
        lastSenderPeer = p;
        return p;
    }

    private boolean onMessage(int type, MemorySegment s, long at, int length) {
        long sender = Wire.getLong(s, at + Wire.SENDER);
        int wflags = Wire.getInt(s, at + Wire.FLAGS);
        long len = type == Wire.INLINE ? Wire.getInt(s, at + Wire.INLINE_LENGTH) : Wire.getLong(s, at + Wire.LENGTH);
        long tag = Wire.getLong(s, at + Wire.TAG);
        boolean tagged = (wflags & Wire.FLAG_TAGGED) != 0;
        if (!tagged) {
            tag = 0;
        }
        Peer peer = type == Wire.INLINE ? null : sender(sender);
        // validate sizes against what the protocol allows before touching any memory
        // an inline record may be as long as the ring allows, but no honest sender inlines more than a bounce
        // slot, which is what an unexpected message's buffer holds
        if (len < 0 || (type == Wire.INLINE && (len > length - Wire.INLINE_HEADER || len > slotSize))
                || (type == Wire.BOUNCE && (len > slotSize || peer == null || !validSlot(peer, s, at)))
                || ((type == Wire.CMA || type == Wire.RTS) && peer == null)) {
            if (type == Wire.BOUNCE && peer != null && validSlot(peer, s, at)) {
                peer.region.bouncePool().release((int) Wire.getLong(s, at + Wire.ADDRESS));
            }
            if ((type == Wire.CMA || type == Wire.RTS) && peer != null) {
                sendAck(peer, Wire.getLong(s, at + Wire.OP_ID), Errno.EINVAL);
            }
            return dropCorrupt(type, length);
        }
        long srcAddr = av == null ? Fabrics.ADDR_NOTAVAIL : av.addrOfSender(sender);
        TagMatcher.Recv r = matcher.matchPosted(tagged, tag, srcAddr);
        if (r == null) {
            return queueUnexpected(type, s, at, peer, sender, srcAddr, tagged, tag, wflags, len);
        }
        long offset = r.consumed;
        long n = Math.min(len, r.length - offset);
        long data = Wire.getLong(s, at + Wire.DATA);
        if (type == Wire.RTS) {
            startPull(r, peer, Wire.getLong(s, at + Wire.OP_ID), len, n, data, wflags, tag, srcAddr);
            return true;
        }
        int status = copyIn(type, s, at, peer, (MemorySegment) r.buffer, offset, n);
        if (type == Wire.CMA) {
            sendAck(peer, Wire.getLong(s, at + Wire.OP_ID), status);
        }
        completeReceive(r, status, len, n, data, wflags, tag, srcAddr);
        return true;
    }

    private static boolean validSlot(Peer peer, MemorySegment s, long at) {
        long slot = Wire.getLong(s, at + Wire.ADDRESS);
        return slot >= 0 && slot < peer.region.bouncePool().slotCount();
    }

    /** Copies {@code n} bytes of a message into {@code dst} at {@code offset}; returns 0 or a positive errno. */
    private int copyIn(int type, MemorySegment s, long at, Peer peer, MemorySegment dst, long offset, long n) {
        switch (type) {
            case Wire.INLINE -> {
                MemorySegment.copy(s, at + Wire.INLINE_HEADER, dst, offset, n);
                return 0;
            }
            case Wire.BOUNCE -> {
                BouncePool pool = peer.region.bouncePool();
                int slot = (int) Wire.getLong(s, at + Wire.ADDRESS);
                MemorySegment.copy(pool.segment(), pool.slotOffset(slot), dst, offset, n);
                pool.release(slot);
                return 0;
            }
            default -> {
                if (n == 0) {
                    return 0;
                }
                if (!dst.isNative()) {
                    return Errno.EINVAL;
                }
                int rc = cma.readFully(peer.pid, dst.address() + offset, Wire.getLong(s, at + Wire.ADDRESS), n);
                return rc == 0 ? 0 : cmaError(rc);
            }
        }
    }

    private static int cmaError(int rc) {
        return switch (-rc) {
            case 3 -> Errno.ECONNRESET; // ESRCH: the sender is gone
            case 14 -> Errno.EFAULT;
            case 1 -> Errno.EPERM;
            default -> Errno.EIO;
        };
    }

    /**
     * Writes the completion of a message placed in receive {@code r} ({@code n} of its {@code len} bytes at
     * {@code r.consumed}). A normal receive is off the matcher's queue already and is recycled; a
     * multi-receive buffer advances and is recycled once the matcher has released it.
     */
    private void completeReceive(TagMatcher.Recv r, int status, long len, long n, long data, int wflags, long tag,
                                 long srcAddr) {
        if (r.isMultiRecv()) {
            long flags = flagsOf(r) | ((wflags & Wire.FLAG_CQ_DATA) != 0 ? OpFlags.REMOTE_CQ_DATA : 0);
            MemorySegment b = (MemorySegment) r.buffer;
            long bufAddr = b.isNative() ? b.address() + r.consumed : 0;
            matcher.consumeMultiRecv(r, n);
            boolean last = r.released;
            if (status != 0 || n < len) {
                rxCq.writeError(false, r.context, flags | (last ? OpFlags.MULTI_RECV : 0), n, bufAddr, data, tag,
                        len - n, status != 0 ? status : Errno.ETRUNC, 0, null);
            } else {
                rxCq.writeFrom(false, r.context, flags | (last ? OpFlags.MULTI_RECV : 0), n, bufAddr, data, tag,
                        srcAddr);
            }
            if (last) {
                rxCq.cancelReservation();
                matcher.free(r);
            }
            return;
        }
        finishReceive(r, status, len, n, data, wflags, tag, srcAddr);
    }

    /** Writes the completion of a (non-multi) receive no longer queued, and recycles it. */
    private void finishReceive(TagMatcher.Recv r, int status, long len, long n, long data, int wflags, long tag,
                               long srcAddr) {
        long flags = flagsOf(r) | ((wflags & Wire.FLAG_CQ_DATA) != 0 ? OpFlags.REMOTE_CQ_DATA : 0);
        MemorySegment b = (MemorySegment) r.buffer;
        long bufAddr = b.isNative() ? b.address() : 0;
        if (status != 0) {
            rxCq.writeError(true, r.context, flags, n, bufAddr, data, tag, 0, status, 0, null);
        } else if (n < len) {
            rxCq.writeError(true, r.context, flags, n, bufAddr, data, tag, len - n, Errno.ETRUNC, 0, null);
        } else {
            rxCq.writeFrom(true, r.context, flags, n, bufAddr, data, tag, srcAddr);
        }
        matcher.free(r);
    }

    private boolean queueUnexpected(int type, MemorySegment s, long at, Peer peer, long sender, long srcAddr,
                                    boolean tagged, long tag, int wflags, long len) {
        if (unexpectedPoolFree == 0) {
            return false; // back-pressure: leave it in the ring until a receive is posted
        }
        TagMatcher.Unexpected u = matcher.addUnexpected(tagged, tag, srcAddr, len, Wire.getLong(s, at + Wire.DATA),
                wflags);
        if (u == null) {
            return false;
        }
        UnexpectedMessage m = unexpectedPool[--unexpectedPoolFree];
        u.payload = m;
        m.senderId = sender;
        if (srcAddr == Fabrics.ADDR_NOTAVAIL && av != null) {
            unknownSources++;
        }
        m.type = type;
        m.peer = peer;
        boolean inline = type == Wire.INLINE; // the short header has no op id or address
        m.opId = inline ? 0 : Wire.getLong(s, at + Wire.OP_ID);
        m.remoteAddress = inline ? 0 : Wire.getLong(s, at + Wire.ADDRESS);
        if (type != Wire.CMA && type != Wire.RTS) {
            copyIn(type, s, at, peer, m.buffer, 0, len); // frees the ring record and the bounce slot now
        }
        return true;
    }

    /**
     * A receive being posted met a queued message (already off the matcher's queue). Returns whether the
     * receive is used up (a normal one always; a multi-receive buffer once released).
     */
    private boolean deliverUnexpected(TagMatcher.Recv r, TagMatcher.Unexpected u) {
        UnexpectedMessage m = (UnexpectedMessage) u.payload;
        MemorySegment b = (MemorySegment) r.buffer;
        long offset = r.consumed;
        long n = Math.min(u.len, r.length - offset);
        int wflags = (int) u.flags;
        int status = 0;
        if (m.type == Wire.RTS) {
            startPull(r, m.peer, m.opId, u.len, n, u.data, wflags, u.tag, u.src);
            return !r.isMultiRecv() || r.released;
        }
        if (m.type == Wire.CMA) {
            if (n > 0) {
                if (!b.isNative()) {
                    status = Errno.EINVAL;
                } else {
                    int rc = cma.readFully(m.peer.pid, b.address() + offset, m.remoteAddress, n);
                    status = rc == 0 ? 0 : cmaError(rc);
                }
            }
            sendAck(m.peer, m.opId, status);
        } else if (n > 0) {
            MemorySegment.copy(m.buffer, 0, b, offset, n);
        }
        completeReceive(r, status, u.len, n, u.data, wflags, u.tag, u.src);
        return !r.isMultiRecv() || r.released;
    }

    // ---- pipelined bounce protocol (no CMA) -----------------------------------------------------

    private void startPull(TagMatcher.Recv r, Peer peer, long senderOp, long len, long n,
                           long data, int wflags, long tag, long srcAddr) {
        if (r.isMultiRecv()) {
            // a multi-receive buffer would have to stay shared while a pull fills part of it
            sendAck(peer, senderOp, Errno.EOPNOTSUPP);
            completeReceive(r, Errno.EOPNOTSUPP, len, 0, data, wflags, tag, srcAddr);
            return;
        }
        PullState p = pulls[pullFree[--pullFreeCount]]; // never empty: one pull per posted receive at most
        p.busy = true;
        p.generation++;
        pullsActive++;
        p.receive = r;
        p.peer = peer;
        p.senderOp = senderOp;
        p.length = len;
        p.wanted = n;
        p.requested = 0;
        p.received = 0;
        p.outstanding = 0;
        p.pullBlocked = false;
        p.data = data;
        p.wireFlags = wflags;
        p.tag = tag;
        p.srcAddr = srcAddr;
        if (n == 0) {
            finishPull(p, 0);
            return;
        }
        requestChunks(p);
    }

    /** Keeps up to PULL_WINDOW chunk requests outstanding. */
    private void requestChunks(PullState p) {
        while (p.requested < p.wanted && p.outstanding < PULL_WINDOW) {
            long chunk = Math.min(slotSize, p.wanted - p.requested);
            MpscRing r = p.peer.ring;
            long at = r.tryClaim(Wire.PULL, COMMAND_RECORD);
            if (at == MpscRing.FULL) {
                p.pullBlocked = true;
                return;
            }
            MemorySegment s = r.buffer();
            writeHeader(s, at, 0, 0, 0, chunk, p.senderOp, p.requested);
            Wire.putLong(s, at + Wire.KEY, p.id());
            r.commit(at);
            p.peer.doorbell.ring();
            p.requested += chunk;
            p.outstanding++;
        }
        p.pullBlocked = false;
    }

    private int resumeBlockedPulls() {
        int n = 0;
        for (int i = 0; i < pulls.length; i++) {
            PullState p = pulls[i];
            if (p.busy && p.pullBlocked) {
                requestChunks(p);
                n++;
            }
        }
        return n;
    }

    /** Sender side: the receiver asks for a chunk of a message it is pulling. */
    private boolean onPull(MemorySegment s, long at) {
        Peer peer = sender(Wire.getLong(s, at + Wire.SENDER));
        long opId = Wire.getLong(s, at + Wire.OP_ID);
        long cookie = Wire.getLong(s, at + Wire.KEY);
        long offset = Wire.getLong(s, at + Wire.ADDRESS);
        long len = Wire.getLong(s, at + Wire.LENGTH);
        PendingOp op = pending.find(opId);
        if (peer == null || op == null || op.segment == null || op.peer != peer || len <= 0 || len > slotSize
                || offset < 0 || offset > op.length - len) {
            return dropCorrupt(Wire.PULL, (int) len);
        }
        if (retryHead != retryTail || !serveChunk(peer, op, cookie, offset, len)) {
            queuePullRetry(peer, opId, cookie, offset, len);
        }
        return true;
    }

    private boolean serveChunk(Peer peer, PendingOp op, long cookie, long offset, long len) {
        BouncePool pool = region.bouncePool();
        int slot = pool.acquire(peer.senderId == -1 ? 1 : peer.senderId);
        if (slot < 0) {
            return false;
        }
        MpscRing r = peer.ring;
        long at = r.tryClaim(Wire.CHUNK, COMMAND_RECORD);
        if (at == MpscRing.FULL) {
            pool.release(slot);
            return false;
        }
        MemorySegment.copy(op.segment, offset, pool.segment(), pool.slotOffset(slot), len);
        MemorySegment s = r.buffer();
        writeHeader(s, at, offset, 0, 0, len, cookie, slot);
        r.commit(at);
        peer.doorbell.ring();
        return true;
    }

    private void queuePullRetry(Peer peer, long opId, long cookie, long offset, long len) {
        int next = (retryTail + 1) % ACK_QUEUE;
        if (next == retryHead) {
            LOG.log(System.Logger.Level.WARNING, "shm endpoint {0}: pull retry queue full", address);
            return;
        }
        retryPeer[retryTail] = peer;
        retryOp[retryTail] = opId;
        retryCookie[retryTail] = cookie;
        retryOffset[retryTail] = offset;
        retryLength[retryTail] = len;
        retryTail = next;
    }

    private int flushPullRetries() {
        int n = 0;
        while (retryHead != retryTail) {
            PendingOp op = pending.find(retryOp[retryHead]);
            if (op != null && op.segment != null && !retryPeer[retryHead].gone()
                    && !serveChunk(retryPeer[retryHead], op, retryCookie[retryHead], retryOffset[retryHead],
                    retryLength[retryHead])) {
                break; // still no slot or ring space; keep order
            }
            retryPeer[retryHead] = null;
            retryHead = (retryHead + 1) % ACK_QUEUE;
            n++;
        }
        return n;
    }

    /** Receiver side: a chunk arrived in one of the sender's slots. */
    private boolean onData(MemorySegment s, long at, int length) {
        long cookie = Wire.getLong(s, at + Wire.OP_ID);
        int index = (int) cookie;
        PullState p = index >= 0 && index < pulls.length ? pulls[index] : null;
        long sender = Wire.getLong(s, at + Wire.SENDER);
        if (p == null || !p.busy || p.generation != (int) (cookie >>> 32) || p.peer.senderId != sender) {
            return dropCorrupt(Wire.CHUNK, length);
        }
        long offset = Wire.getLong(s, at + Wire.TAG);
        long len = Wire.getLong(s, at + Wire.LENGTH);
        long slotIndex = Wire.getLong(s, at + Wire.ADDRESS);
        BouncePool pool = p.peer.region.bouncePool();
        if (slotIndex < 0 || slotIndex >= pool.slotCount() || len <= 0 || len > slotSize || offset < 0
                || offset > p.wanted - len) {
            return dropCorrupt(Wire.CHUNK, length);
        }
        MemorySegment.copy(pool.segment(), pool.slotOffset((int) slotIndex), (MemorySegment) p.receive.buffer, offset,
                len);
        pool.release((int) slotIndex);
        p.received += len;
        p.outstanding--;
        if (p.received >= p.wanted) {
            finishPull(p, 0);
        } else {
            requestChunks(p);
        }
        return true;
    }

    private void finishPull(PullState p, int status) {
        sendAck(p.peer, p.senderOp, status);
        TagMatcher.Recv r = p.receive;
        finishReceive(r, status, p.length, status == 0 ? p.wanted : p.received, p.data, p.wireFlags, p.tag,
                p.srcAddr);
        p.busy = false;
        p.receive = null;
        p.peer = null;
        pullFree[pullFreeCount++] = p.index;
        pullsActive--;
    }

    private boolean onRma(int type, MemorySegment s, long at) {
        long sender = Wire.getLong(s, at + Wire.SENDER);
        Peer peer = sender(sender);
        if (peer == null) {
            return true; // the initiator is gone; nobody to answer
        }
        long opId = Wire.getLong(s, at + Wire.OP_ID);
        long len = Wire.getLong(s, at + Wire.LENGTH);
        long addr = Wire.getLong(s, at + Wire.ADDRESS);
        long key = Wire.getLong(s, at + Wire.KEY);
        long remote = Wire.getLong(s, at + Wire.LOCAL_ADDRESS);
        UtilMemoryRegion mr = domain.mrMap.find(key);
        int status;
        if (mr == null) {
            status = Errno.ENOKEY;
        } else {
            long off = mr.resolve(addr, len, type == Wire.RMA_WRITE ? Access.REMOTE_WRITE : Access.REMOTE_READ);
            if (off < 0) {
                status = (int) -off;
            } else if (len == 0) {
                status = 0;
            } else {
                long local = mr.segment().address() + off;
                int rc = type == Wire.RMA_WRITE
                        ? cma.readFully(peer.pid, local, remote, len)
                        : cma.writeFully(peer.pid, local, remote, len);
                status = rc == 0 ? 0 : cmaError(rc);
            }
        }
        if (status == 0 && type == Wire.RMA_WRITE && (Wire.getInt(s, at + Wire.FLAGS) & Wire.FLAG_CQ_DATA) != 0
                && rxCq != null) {
            // fi_writedata: the data is in place before the target's completion is visible
            rxCq.writeFrom(null, OpFlags.RMA | OpFlags.REMOTE_WRITE | OpFlags.REMOTE_CQ_DATA, len, 0,
                    Wire.getLong(s, at + Wire.DATA), 0, av == null ? Fabrics.ADDR_NOTAVAIL : av.addrOfSender(sender));
        }
        sendAck(peer, opId, status);
        return true;
    }

    private void sendAck(Peer peer, long opId, int status) {
        if (ackHead == ackTail && writeAck(peer, opId, status)) {
            return;
        }
        int next = (ackTail + 1) % ACK_QUEUE;
        if (next == ackHead) {
            LOG.log(System.Logger.Level.WARNING, "shm endpoint {0}: ACK queue full, dropping an ACK to {1}",
                    address, peer.name);
            return;
        }
        ackPeer[ackTail] = peer;
        ackOp[ackTail] = opId;
        ackStatus[ackTail] = status;
        ackTail = next;
    }

    private boolean writeAck(Peer peer, long opId, int status) {
        if (peer.gone()) {
            return true; // nobody to tell
        }
        MpscRing r = peer.ring;
        long at = r.tryClaim(Wire.ACK, COMMAND_RECORD);
        if (at == MpscRing.FULL) {
            return false;
        }
        MemorySegment s = r.buffer();
        writeHeader(s, at, 0, 0, 0, 0, opId, 0);
        Wire.putInt(s, at + Wire.STATUS, status);
        r.commit(at);
        peer.doorbell.ring();
        return true;
    }

    private int flushAcks() {
        int n = 0;
        while (ackHead != ackTail) {
            if (!writeAck(ackPeer[ackHead], ackOp[ackHead], ackStatus[ackHead])) {
                break;
            }
            ackPeer[ackHead] = null;
            ackHead = (ackHead + 1) % ACK_QUEUE;
            n++;
        }
        return n;
    }

    private void completeOp(PendingOp op, int status) {
        if (status == 0 && !op.reserved) {
            // FI_SELECTIVE_COMPLETION without FI_COMPLETION: success is silent (errors are always reported)
        } else if (status == 0) {
            txCq.writeFrom(op.reserved, op.context, op.completionFlags, op.length, 0, 0, 0, Fabrics.ADDR_NOTAVAIL);
        } else {
            txCq.writeError(op.reserved, op.context, op.completionFlags, op.length, 0, 0, 0, 0,
                    Math.abs(status), 0, null);
        }
        pending.release(op);
    }

    // ---- blocking (sread) ----------------------------------------------------------------------

    /** Sleeps on this endpoint's doorbell until a peer writes into the ring, or {@code nanos} pass. */
    void block(long nanos) {
        doorbell.arm();
        try {
            if (!ring.isEmpty() || ackHead != ackTail || isClosed()) {
                return;
            }
            // with operations in flight, wake up now and then to notice dead peers
            long limit = pending.inFlight() > 0 ? Math.min(nanos, LIVENESS_INTERVAL) : nanos;
            if (deferredHead != deferredTail) {
                // nobody rings this doorbell when a peer consumes a deferred send: look again soon
                limit = Math.min(limit, DEFERRED_POLL_NANOS);
            }
            doorbell.await(futex, limit);
        } finally {
            doorbell.disarm();
            busyPolls = LIVENESS_CLOCK_EVERY - 1; // after a sleep the next progress looks at the clock
        }
    }

    /** Ends a concurrent {@link #block}. */
    void wakeup() {
        // no ring record was claimed, so no CAS orders what the caller wrote before against the armed word
        java.lang.invoke.VarHandle.fullFence();
        doorbell.ring();
    }

    private void lock() {
        if (domain.lock != null) {
            domain.lock.lock();
        }
    }

    private void unlock() {
        if (domain.lock != null) {
            domain.lock.unlock();
        }
    }

    // ---- close ---------------------------------------------------------------------------------

    @Override
    protected void doClose() {
        domain.detach(this);
        lock();
        try {
            for (int i = 0; i < pending.capacity(); i++) {
                PendingOp op = pending.at(i);
                if (op.busy) {
                    completeOp(op, op.ringEnd >= 0 && op.peer.ring.consumed(op.ringEnd) ? 0 : Errno.ECANCELED);
                }
            }
            for (PullState p : pulls) {
                if (p.busy) {
                    finishPull(p, Errno.ECANCELED);
                }
            }
            TagMatcher.Recv r;
            while ((r = matcher.removeFirstPosted()) != null) {
                rxCq.writeError(true, r.context, flagsOf(r), 0, 0, 0, 0, 0, Errno.ECANCELED, 0, null);
                matcher.free(r);
            }
            TagMatcher.Unexpected u;
            while ((u = matcher.removeFirstUnexpected()) != null) {
                UnexpectedMessage m = (UnexpectedMessage) u.payload;
                if ((m.type == Wire.CMA || m.type == Wire.RTS) && m.peer != null) {
                    sendAck(m.peer, m.opId, Errno.ECANCELED);
                }
                freeUnexpected(u);
            }
            flushAcks();
        } finally {
            unlock();
        }
        region.close();
        futex.close();
        cma.close();
        if (txCq != null) {
            txCq.release();
        }
        if (rxCq != null) {
            rxCq.release();
        }
        if (av != null) {
            av.release();
        }
        domain.endpointClosed(this);
        arena.close();
    }

    @Override
    public String toString() {
        return "ShmEndpoint[" + address + ", " + ring + ", " + matcher
                + ", pending=" + pending.inFlight() + ", corrupt=" + corruptDropped
                + (unknownSources > 0 ? ", from unknown senders<=" + unknownSources : "") + "]";
    }
}
