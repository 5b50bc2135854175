package io.jfabric.netty;

import io.jfabric.Access;
import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;

import io.netty.util.ReferenceCountUtil;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One RDM endpoint with its own CQ and AV, and the registered slots a stream sends from and receives into: the
 * transport under one channel. It knows nothing of frames beyond their slots; {@link Sink} gets every completion.
 *
 * <p>Receive slots are posted untagged from any source, so whichever frame comes next lands in the next posted
 * slot. Transmit slots are a free stack; a send that finds none is refused and the caller waits for a completion.
 */
final class FrameLink implements AutoCloseable {
    /** What a link reports from its CQ. */
    interface Sink {
        void received(RxSlot slot);

        void sent(TxSlot slot);

        /** An error completion of {@code context} (an {@link RxSlot} or {@link TxSlot}) with {@code err} (positive errno). */
        void failed(Object context, int err, String why);
    }

    /** A receive buffer: its index, its memory, and how many bytes the last frame filled. */
    static final class RxSlot {
        final int index;
        final MemorySegment memory;
        /** The same memory as a ByteBuffer, so a ByteBuf copies out of it without a view per frame. */
        final ByteBuffer view;
        /**
         * The payload part of the slot as the pipeline gets it when the slot is lent: null on a link without spares,
         * and while the slot is lent (the buffer sets it again when released).
         */
        SlotByteBuf buf;
        /** The next slot in {@link LentSlots}' stack of slots given back. */
        RxSlot nextReturned;
        long received;
        /** Payload bytes already handed to the pipeline (a read may take a frame in several ByteBufs). */
        int consumed;

        RxSlot(int index, MemorySegment memory) {
            this.index = index;
            this.memory = memory;
            this.view = memory.asByteBuffer();
        }
    }

    /** The iov entries an in-place send uses at most: the slot's header (and what was copied after it), then payload. */
    static final int MAX_IOV = 4;

    /** A transmit buffer: its memory, and the caller's object kept alive until the send completes. */
    static final class TxSlot {
        final MemorySegment memory;
        final ByteBuffer view;
        /** An in-place send's buffers: the slot's lead, then the payload's parts, which the sender puts from 1. */
        final MemorySegment[] iov = new MemorySegment[MAX_IOV];
        final MemoryRegion[] descs = new MemoryRegion[MAX_IOV];
        Object held;
        /** The {@link RegistrationCache} entry the payload of an in-place send is registered in, or -1. */
        int registration = -1;

        /** The slot's first bytes as a copied frame sends them, and as an in-place send leads with them. */
        private final SliceCache copied;
        private final SliceCache lead;

        TxSlot(MemorySegment memory) {
            this.memory = memory;
            this.view = memory.asByteBuffer();
            this.copied = new SliceCache(memory);
            this.lead = new SliceCache(memory);
        }
    }

    /**
     * The first {@code length} bytes of a slot, as a view kept while the length stays the same: frames of one size
     * reuse one view. A slot keeps one for whole copied frames and one for the header (and copied prefix) of an
     * in-place send, so that the two kinds taking turns do not make a view per send.
     */
    private static final class SliceCache {
        private final MemorySegment memory;
        private MemorySegment sized;
        private long sizedLength = -1;

        SliceCache(MemorySegment memory) {
            this.memory = memory;
        }

        MemorySegment first(long length) {
            if (length != sizedLength) {
                sized = memory.asSlice(0, length);
                sizedLength = length;
            }
            return sized;
        }
    }

    private static final int POLL_BATCH = 16;

    final LoopDomain loop;
    final Endpoint ep;
    final int slotSize;
    private final CompletionQueue cq;
    /** Null on a connected (FI_EP_MSG) endpoint, which has {@link #eq} instead. */
    private final AddressVector av;
    /** The connection's event queue on a FI_EP_MSG endpoint (this link closes it), else null. */
    final EventQueue eq;
    /**
     * How many components of a composite write an in-place send gathers at most: the provider's iov limit less the
     * slot's own entry; 0 where the provider wants local descriptors, which only single pooled buffers get.
     */
    final int gatherParts;
    /** Whether the provider tells of a peer gone (CM events, or the loop's peer-failure events) without a send. */
    final boolean reportsPeerFailure;
    private final Arena arena;
    private final MemoryRegion mr;
    private final MemoryRegion desc;
    private final RxSlot[] rx;
    /** The spare receive slots that let the pipeline keep large frames in place. */
    final LentSlots lending;
    private final TxSlot[] txAll;
    private final TxSlot[] txFree;
    private int txFreeCount;
    private final RxSlot[] repost;
    private int repostCount;
    private final CqEntry[] entries = CqEntry.array(POLL_BATCH);
    private final CqErrEntry error = new CqErrEntry();
    private boolean closed;
    /** The fi_addr of the stream's peer, whose reported failure matters ({@link #watch}), or -1. */
    private long watched = -1;
    /** The provider reported {@link #watched} gone, and the stream has not taken it yet. */
    private boolean watchedFailed;

    private FrameLink(LoopDomain loop, FabricInfo info, EventQueue eq, int rxSlots, int spareSlots, int txSlots,
            int slotSize) {
        this.loop = loop;
        this.eq = eq;
        this.slotSize = slotSize;
        long iovLimit = info.txAttr == null ? 0 : info.txAttr.iovLimit;
        this.gatherParts = loop.needsLocalDesc ? 0 : (int) Math.max(1, Math.min(MAX_IOV, iovLimit) - 1);
        this.arena = Arena.ofShared();
        CompletionQueue c = null;
        AddressVector a = null;
        Endpoint e = null;
        MemoryRegion m = null;
        boolean reports = eq != null;
        try {
            int rxAll = rxSlots + spareSlots;
            MemorySegment all = arena.allocate((long) (rxAll + txSlots) * slotSize, 4096);
            if (loop.needsLocalDesc) {
                m = loop.register(all, Access.SEND | Access.RECV);
            }
            c = loop.openCq(CqFormat.MSG, 2L * (rxSlots + txSlots) + 16);
            e = loop.domain.openEndpoint(info);
            if (eq != null) {
                e.bind(eq);
            } else {
                AvType type = loop.info.domainAttr.avType == AvType.UNSPEC ? AvType.MAP : loop.info.domainAttr.avType;
                a = loop.domain.openAv(AvAttr.of(type));
                e.bind(a);
                EventQueue peerEvents = loop.peerEvents();
                if (peerEvents != null) {
                    e.bind(peerEvents);
                    reports = true;
                }
            }
            e.bind(c, BindFlags.TRANSMIT | BindFlags.RECV);
            e.enable();
            rx = new RxSlot[rxSlots];
            repost = new RxSlot[rxSlots];
            RxSlot[] spares = new RxSlot[spareSlots];
            for (int i = 0; i < rxAll; i++) {
                RxSlot slot = new RxSlot(i, all.asSlice((long) i * slotSize, slotSize));
                if (i < rxSlots) {
                    rx[i] = slot;
                } else {
                    spares[i - rxSlots] = slot;
                }
            }
            lending = new LentSlots(arena, spares);
            if (spareSlots > 0) {
                for (int i = 0; i < rxAll; i++) {
                    RxSlot slot = i < rxSlots ? rx[i] : spares[i - rxSlots];
                    slot.buf = new SlotByteBuf(slot.memory.asSlice(Frame.HEADER), slot, lending);
                }
            }
            txAll = new TxSlot[txSlots];
            txFree = new TxSlot[txSlots];
            for (int i = 0; i < txSlots; i++) {
                txAll[i] = new TxSlot(all.asSlice((long) (rxAll + i) * slotSize, slotSize));
                txFree[i] = txAll[i];
            }
            txFreeCount = txSlots;
        } catch (RuntimeException ex) {
            closeAll(e, a, c, eq);
            if (m != null) {
                loop.deregister(m);
            }
            arena.close();
            throw ex;
        }
        cq = c;
        av = a;
        ep = e;
        reportsPeerFailure = reports;
        mr = m;
        desc = m;
        loop.linkOpened(this);
    }

    /**
     * Opens an endpoint from {@code info} on {@code loop}'s domain and posts every receive slot; {@code spareSlots}
     * more wait to take the place of slots the pipeline keeps ({@link LentSlots}).
     */
    static FrameLink open(LoopDomain loop, FabricInfo info, int rxSlots, int spareSlots, int txSlots, int slotSize) {
        return postAll(new FrameLink(loop, info, null, rxSlots, spareSlots, txSlots, slotSize));
    }

    /**
     * Opens a FI_EP_MSG endpoint from {@code info} (a dial info, or a CONNREQ's) bound to {@code eq}, which the link
     * owns from now on, and posts every receive slot before the connection exists, so the peer never finds none.
     */
    static FrameLink openConnected(LoopDomain loop, FabricInfo info, EventQueue eq, int rxSlots, int spareSlots,
            int txSlots, int slotSize) {
        return postAll(new FrameLink(loop, info, eq, rxSlots, spareSlots, txSlots, slotSize));
    }

    private static FrameLink postAll(FrameLink link) {
        for (RxSlot s : link.rx) {
            link.postRecv(s);
        }
        return link;
    }

    byte[] name() {
        return ep.getName();
    }

    /** Inserts a peer's name; returns its fi_addr. Throws FabricException if the AV refuses it. */
    long insert(byte[] peerName) {
        return av == null ? Fabrics.ADDR_UNSPEC : av.insert(peerName);
    }

    String straddr(byte[] name) {
        return av == null ? SockAddr.text(name) : av.straddr(name);
    }

    MemoryRegion desc() {
        return desc;
    }

    /** Gives the slot back to the endpoint; a refusal (EAGAIN) is retried on the next poll. */
    void postRecv(RxSlot slot) {
        if (closed) {
            return;
        }
        int rc = loop.noteRefusal(ep.recv(slot.memory, desc, Fabrics.ADDR_UNSPEC, slot));
        if (rc != 0) {
            repost[repostCount++] = slot;
        }
    }

    /** A free transmit slot, or null while all are in flight or once the link has closed (its memory is gone). */
    TxSlot takeTx() {
        return txFreeCount == 0 || closed ? null : txFree[--txFreeCount];
    }

    void giveBack(TxSlot slot) {
        slot.held = null;
        if (slot.registration >= 0) {
            loop.registrations.release(slot.registration);
            slot.registration = -1;
        }
        txFree[txFreeCount++] = slot;
    }

    boolean txIdle() {
        return txFreeCount == txFree.length;
    }

    /** Sends {@code length} bytes of {@code slot}; 0, or a negative errno (the slot is then still the caller's). */
    int send(TxSlot slot, int length, long dest) {
        return loop.noteRefusal(ep.send(slot.copied.first(length), desc, dest, slot));
    }

    /**
     * Sends the slot's first {@link Frame#HEADER} + {@code prefix} bytes (the header and what was copied after it)
     * and the {@code parts} payload buffers the caller put in {@code slot.iov} from index 1, memory the provider
     * reads in place until the send completes, as one message; {@code payloadDesc} describes them all.
     */
    int sendv(TxSlot slot, int prefix, int parts, MemoryRegion payloadDesc, long dest) {
        slot.iov[0] = slot.lead.first(Frame.HEADER + prefix);
        slot.descs[0] = desc;
        for (int i = 1; i <= parts; i++) {
            slot.descs[i] = payloadDesc;
        }
        return loop.noteRefusal(ep.sendv(slot.iov, slot.descs, 1 + parts, dest, slot));
    }

    /**
     * Makes {@code fiAddr} the peer whose reported failure the stream hears of. Others in the AV are not: a client's
     * AV also holds the listener it sent CONNECT to, and ofi_rxm reports that connection's loss too.
     */
    void watch(long fiAddr) {
        watched = fiAddr;
    }

    /** The provider reported the peer at {@code fiAddr} gone (FI_JF_PEER_FAILED on the loop's peer-event queue). */
    void peerFailed(long fiAddr) {
        if (fiAddr >= 0 && fiAddr == watched) {
            watchedFailed = true;
        }
    }

    /** Whether the watched peer was reported gone since the last call (which forgets it). */
    boolean takeWatchedFailure() {
        boolean f = watchedFailed;
        watchedFailed = false;
        return f;
    }

    /** Reads up to a batch of completions into {@code sink}; returns how many it handled. */
    int poll(Sink sink) {
        if (closed) {
            return 0;
        }
        int work = 0;
        if (repostCount > 0) {
            int n = repostCount;
            repostCount = 0;
            for (int i = 0; i < n; i++) {
                postRecv(repost[i]);
            }
        }
        int n = cq.read(entries, POLL_BATCH);
        if (n > 0) {
            for (int i = 0; i < n; i++) {
                CqEntry e = entries[i];
                Object ctx = e.context;
                e.context = null;
                if (ctx instanceof RxSlot s) {
                    s.received = e.len;
                    sink.received(s);
                } else if (ctx instanceof TxSlot t) {
                    sink.sent(t);
                }
            }
            work += n;
        } else if (n == -Errno.EAVAIL) {
            if (cq.readError(error, 0) > 0) {
                Object ctx = error.context;
                error.context = null;
                sink.failed(ctx, error.err, cq.strerror(error.provErrno, error.errData));
                work++;
            }
        }
        return work;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeAll(ep, av, cq, eq);
        if (mr != null) {
            loop.deregister(mr);
        }
        // sends that never completed still hold their buffers: the endpoint is gone, so nothing reads them now
        for (TxSlot t : txAll) {
            if (t.held != null) {
                ReferenceCountUtil.safeRelease(t.held);
                t.held = null;
            }
            if (t.registration >= 0) {
                loop.registrations.release(t.registration);
                t.registration = -1;
            }
        }
        // the pipeline may still hold lent slots: the memory goes with the last of them
        lending.close();
        loop.linkClosed(this);
    }

    private static void closeAll(AutoCloseable... objects) {
        for (AutoCloseable o : objects) {
            if (o != null) {
                try {
                    o.close();
                } catch (Exception ignored) {
                    // teardown: a failure to close one object must not keep the rest open
                }
            }
        }
    }
}
