package io.jfabric.examples.rpc;

import io.jfabric.Access;
import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * A Mercury-style RPC engine over one jfabric RDM endpoint (Mercury's hg_class_t plus hg_context_t).
 *
 * <ul>
 * <li>{@link #register}: an RPC id with input/output {@link Codec}s and, on a server, a handler (HG_Register).</li>
 * <li>{@link #lookup}: a peer by its endpoint address (HG_Addr_lookup); a hello exchange tells each side how
 *     the other names it, so no provider needs FI_SOURCE.</li>
 * <li>{@link #forward}: a request with a timeout (HG_Forward); {@link #cancel} (HG_Cancel). Requests are
 *     tagged sends; the tag carries the RPC id and the request id, and the response comes back as a
 *     tagged message matched exactly on it.</li>
 * <li>{@link #bulkRegister}/{@link #bulkTransfer}: RMA read (pull) or write (push) of a peer's
 *     registered memory (HG_Bulk_create/HG_Bulk_transfer).</li>
 * <li>{@link #progress} reads the CQ and makes callbacks ready; {@link #trigger} runs them
 *     (HG_Progress/HG_Trigger). With {@link EngineOptions#progressThread} a background thread does the
 *     progress and the caller only triggers.</li>
 * </ul>
 *
 * <p>Failure: a request ends with ETIMEDOUT at its deadline, ECANCELED on cancel, or EHOSTDOWN when the
 * provider says its target is gone (jfabric's FI_JF_PEER_FAILED on the endpoint's EQ), its target stops
 * answering the engine's pings (sent only while requests to it are outstanding) or a send to it fails.
 * An ended request's receive is cancelled and an attached bulk handle is released, so a late server can
 * no longer touch that memory. Differences from Mercury: one endpoint per engine,
 * payloads beyond {@link EngineOptions#maxPayload} must go as bulk (no automatic overflow), and
 * lookup is synchronous.
 *
 * <p>Threading: without a progress thread the engine is single-threaded (no locks); with one, a
 * reentrant lock serialises endpoint and queue access, and callbacks still run on the thread that
 * calls trigger.
 */
public final class RpcEngine implements AutoCloseable {
    static final int HEADER = 8;
    static final int RPC_HELLO = 0xFFFE;
    static final int RPC_PING = 0xFFFD;
    /** Highest id applications may register. */
    public static final int MAX_RPC_ID = 0xFF00;

    private static final System.Logger LOG = System.getLogger("jfabric.examples.rpc");
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    /**
     * How long a post refused with EAGAIN is retried (progress runs meanwhile). ofi_rxm connects on demand and
     * refuses posts until the connection is up, which took over 2 s on a loaded 2-core machine; -Drpc.postRetryMs
     * stretches it further where setting up a connection takes longer (the emulated Soft-RoCE VM).
     */
    static final long POST_RETRY_NANOS = Long.getLong("rpc.postRetryMs", 10_000) * 1_000_000L;
    /** Receive buffers kept for hello and ping, apart from the application's. */
    private static final int INTERNAL_INCOMING = 8;

    private final FabricResources res;
    private final EngineOptions options;
    private final EngineProgress progress;
    private final IncomingRequests server;
    private final Arena arena = Arena.ofShared();
    private final MemoryRegion poolMr;
    private final MemoryRegion poolDesc;
    private final byte[] selfAddress;
    private final long maxRma;

    private final RequestSlot[] slots;
    private final int[] freeSlots;
    private int freeSlotCount;
    private final Incoming<?, ?>[] incomings;
    private final BulkTransfer[] bulks;
    private final int[] freeBulks;
    private int freeBulkCount;
    @SuppressWarnings("unchecked")
    private final Rpc<Object, Object>[] rpcs = (Rpc<Object, Object>[]) new Rpc<?, ?>[0x10000];
    private final Map<String, Target> targets = new HashMap<>();
    private final List<Target> targetList = new ArrayList<>();
    private final Map<String, Long> peerIds = new HashMap<>();
    private final long pingIntervalNanos;

    private RpcEngine(FabricResources res, EngineOptions options) {
        this.res = res;
        this.options = options;
        this.progress = new EngineProgress(this, res.cq, res.eq, options.progressThread);
        this.selfAddress = res.ep.getName();
        this.maxRma = res.maxMessageSize();
        this.pingIntervalNanos = Math.max(1, options.peerTimeoutMillis / 4) * 1_000_000L;
        int bufSize = HEADER + options.maxPayload;
        long poolSize = (long) bufSize * 2 * (options.requestSlots + options.incomingSlots + INTERNAL_INCOMING);
        MemorySegment pool = arena.allocate(poolSize, 4096);
        this.poolMr = res.register(pool, Access.SEND | Access.RECV | Access.READ | Access.WRITE);
        this.poolDesc = res.localDesc(poolMr);
        this.server = new IncomingRequests(this, progress, poolDesc);
        long off = 0;
        slots = new RequestSlot[options.requestSlots];
        freeSlots = new int[options.requestSlots];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new RequestSlot(this, i, pool.asSlice(off, bufSize), pool.asSlice(off + bufSize, bufSize));
            off += 2L * bufSize;
        }
        for (int i = slots.length - 1; i >= 0; i--) {
            freeSlots[freeSlotCount++] = i;
        }
        incomings = new Incoming<?, ?>[options.incomingSlots + INTERNAL_INCOMING];
        for (int i = 0; i < incomings.length; i++) {
            incomings[i] = new Incoming<>(server, i, pool.asSlice(off, bufSize), pool.asSlice(off + bufSize, bufSize),
                    i >= options.incomingSlots);
            off += 2L * bufSize;
        }
        bulks = new BulkTransfer[options.bulkSlots];
        freeBulks = new int[options.bulkSlots];
        for (int i = 0; i < bulks.length; i++) {
            bulks[i] = new BulkTransfer(this, i);
            freeBulks[freeBulkCount++] = i;
        }
        for (Incoming<?, ?> in : incomings) {
            int rc = server.postIncoming(in);
            if (rc < 0) {
                throw new FabricException(-rc, "posting the server's receive buffers on " + res.providerName()
                        + " failed; lower EngineOptions.incomingSlots");
            }
        }
        progress.start();
    }

    /** Opens an engine on an RDM endpoint of {@code provider} ("libfabric:shm", "tcp;ofi_rxm" ...). */
    public static RpcEngine open(String provider, EngineOptions options) {
        FabricResources res = FabricResources.open(provider);
        try {
            return new RpcEngine(res, options);
        } catch (RuntimeException e) {
            res.close();
            throw e;
        }
    }

    FabricResources resources() {
        return res;
    }

    EngineOptions options() {
        return options;
    }

    /** This engine's endpoint address; give it to peers (file, command line) for {@link #lookup}. */
    public byte[] selfAddress() {
        return selfAddress.clone();
    }

    /** The provider the engine runs on, as discovery named it. */
    public String providerName() {
        return res.providerName();
    }

    /** fi_av_straddr of an address, for messages. */
    public String describeAddress(byte[] address) {
        return res.av.straddr(address);
    }

    // ---- registration -----------------------------------------------------------------------------

    /**
     * HG_Register: {@code handler} may be null on a pure client. Throws IllegalArgumentException for an id
     * outside 0..{@link #MAX_RPC_ID} or one already registered.
     */
    @SuppressWarnings("unchecked")
    public <I, O> Rpc<I, O> register(int id, String name, Codec<I> input, Codec<O> output, RpcHandler<I, O> handler) {
        if (id < 0 || id > MAX_RPC_ID) {
            throw new IllegalArgumentException("RPC id " + id + " outside 0.." + MAX_RPC_ID);
        }
        progress.lock();
        try {
            if (rpcs[id] != null) {
                throw new IllegalArgumentException("RPC id " + id + " is already registered as " + rpcs[id].name);
            }
            Rpc<I, O> rpc = new Rpc<>(id, name, input, output, handler);
            rpcs[id] = (Rpc<Object, Object>) (Rpc<?, ?>) rpc;
            return rpc;
        } finally {
            progress.unlock();
        }
    }

    // ---- peers --------------------------------------------------------------------------------------

    /**
     * HG_Addr_lookup: the target at {@code address}, after a hello exchange bounded by {@code timeoutMillis}.
     * Throws FabricException (ETIMEDOUT, or the send's error) when the peer does not answer.
     */
    public Target lookup(byte[] address, long timeoutMillis) {
        String key = HexFormat.of().formatHex(address);
        Target t;
        progress.lock();
        try {
            t = targets.get(key);
            if (t != null && t.helloStatus == 0 && !t.isDead()) {
                return t;
            }
            long fi = peerIdLocked(address);
            t = new Target(address, fi);
            t.lastHeardNanos = System.nanoTime();
            int rc = startInternal(t, RequestSlot.INTERNAL_HELLO, timeoutMillis);
            if (rc < 0) {
                throw new FabricException(-rc, "could not send a hello to " + res.av.straddr(address));
            }
        } finally {
            progress.unlock();
        }
        long deadline = System.nanoTime() + (timeoutMillis + 1000) * 1_000_000L;
        while (t.helloStatus == 1 && System.nanoTime() < deadline) {
            if (!progress.hasThread()) {
                progress(1);
            } else {
                LockSupport.parkNanos(100_000);
            }
        }
        progress.lock();
        try {
            if (t.helloStatus != 0) {
                int err = t.helloStatus == 1 ? Errno.ETIMEDOUT : -t.helloStatus;
                throw new FabricException(err, "no answer from " + res.av.straddr(address) + " within "
                        + timeoutMillis + " ms; check the server runs and uses the same provider ("
                        + res.providerName() + ")");
            }
            targets.put(key, t);
            targetList.removeIf(o -> HexFormat.of().formatHex(o.address).equals(key));
            targetList.add(t);
            return t;
        } finally {
            progress.unlock();
        }
    }

    /** Our fi_addr for a peer address, inserting it into the AV the first time (control path). */
    long peerIdLocked(byte[] address) {
        String key = HexFormat.of().formatHex(address);
        Long fi = peerIds.get(key);
        if (fi == null) {
            fi = res.av.insert(address);
            peerIds.put(key, fi);
        }
        return fi;
    }

    // ---- client: forward / cancel -------------------------------------------------------------------

    /**
     * HG_Forward: sends {@code input} to {@code target}; {@code callback} runs from trigger with the output
     * or an error. Returns the request id (&ge; 0, for {@link #cancel}) or a negative errno: EAGAIN when all
     * request slots are in use, EMSGSIZE when the input does not fit, EHOSTDOWN for a dead target.
     *
     * @param attached a bulk handle the request exposes; released by the engine if the request ends in
     *                 error (timeout, cancel, dead target), so the peer cannot reach the memory any more
     */
    @SuppressWarnings("unchecked")
    public <I, O> long forward(Target target, Rpc<I, O> rpc, I input, BulkHandle attached, long timeoutMillis,
                               ResponseCallback<O> callback, Object arg) {
        progress.lock();
        try {
            if (target.isDead()) {
                return -target.deadStatus;
            }
            if (freeSlotCount == 0) {
                return -Errno.EAGAIN;
            }
            RequestSlot s = takeSlot();
            s.rpc = (Rpc<Object, Object>) (Rpc<?, ?>) rpc;
            s.target = target;
            s.callback = (ResponseCallback<Object>) (ResponseCallback<?>) callback;
            s.arg = arg;
            s.attached = attached;
            long n;
            try {
                n = rpc.input.encode(input, s.sendPayload);
            } catch (RuntimeException e) {
                n = -1;
            }
            if (n < 0) {
                freeSlot(s);
                return -Errno.EMSGSIZE;
            }
            int rc = launch(s, n, timeoutMillis);
            return rc < 0 ? rc : s.requestId();
        } finally {
            progress.unlock();
        }
    }

    /** HG_Cancel: ends request {@code requestId} with ECANCELED (its callback still runs). Returns 0, or -ENOENT if it already ended. */
    public int cancel(long requestId) {
        progress.lock();
        try {
            int index = (int) (requestId & 0xFFFF);
            if (requestId < 0 || index >= slots.length) {
                return -Errno.EINVAL;
            }
            RequestSlot s = slots[index];
            if (!s.active || s.finished || s.requestId() != (int) requestId) {
                return -Errno.ENOENT;
            }
            finish(s, -Errno.ECANCELED);
            return 0;
        } finally {
            progress.unlock();
        }
    }

    private RequestSlot takeSlot() {
        RequestSlot s = slots[freeSlots[--freeSlotCount]];
        s.generation = (s.generation + 1) & 0x7FFF;
        s.active = true;
        s.sendDone = false;
        s.recvDone = false;
        s.finished = false;
        s.callbackDone = false;
        s.status = 0;
        s.internal = RequestSlot.INTERNAL_NONE;
        return s;
    }

    private void freeSlot(RequestSlot s) {
        s.active = false;
        s.rpc = null;
        s.target = null;
        s.callback = null;
        s.arg = null;
        s.attached = null;
        freeSlots[freeSlotCount++] = s.index;
    }

    /**
     * Posts the response receive, then the request send, of a slot whose payload is encoded. Deadline and
     * accounting are set first: a full queue makes the posts drive progress, which scans deadlines.
     */
    private int launch(RequestSlot s, long payload, long timeoutMillis) {
        Target t = s.target;
        int rpcId = s.internal == RequestSlot.INTERNAL_HELLO ? RPC_HELLO
                : s.internal == RequestSlot.INTERNAL_PING ? RPC_PING : s.rpc.id;
        s.sendBuf.set(LONG, 0, s.internal == RequestSlot.INTERNAL_HELLO ? -1 : t.idAtPeer);
        s.deadlineNanos = System.nanoTime() + timeoutMillis * 1_000_000L;
        if (t.outstanding++ == 0) {
            t.lastHeardNanos = System.nanoTime();
        }
        long tag = Tags.response(rpcId, s.requestId());
        long until = System.nanoTime() + POST_RETRY_NANOS;
        int rc;
        s.recvDone = true; // nothing posted yet: a finish while draining must not cancel
        while ((rc = res.ep.trecv(s.recvBuf, poolDesc, Fabrics.ADDR_UNSPEC, tag, 0, s.recvCtx)) == -Errno.EAGAIN
                && progress.drainUntil(until)) {
            // the receive queue is full: completions free it
        }
        if (rc < 0) {
            if (!s.finished) {
                t.outstanding--;
                if (s.internal == RequestSlot.INTERNAL_PING) {
                    t.pingInFlight = false;
                }
                freeSlot(s);
                return rc;
            }
            // it ended while the receive was being refused: its callback (if any) reports that
            s.sendDone = true;
            maybeFree(s);
            return s.callback == null ? rc : 0;
        }
        s.recvDone = false;
        if (s.finished) {
            // it ended (timeout, cancel, dead target) while the receive was being posted
            res.ep.cancel(s.recvCtx);
            s.sendDone = true;
            return s.callback == null ? -Errno.ECANCELED : 0;
        }
        MemorySegment msg = s.sendBuf.asSlice(0, HEADER + payload);
        until = System.nanoTime() + POST_RETRY_NANOS;
        long requestTag = Tags.request(rpcId, s.requestId())
                | (s.internal != RequestSlot.INTERNAL_NONE ? Tags.INTERNAL : 0);
        while ((rc = res.ep.tsend(msg, poolDesc, t.fiAddr, requestTag, s.sendCtx))
                == -Errno.EAGAIN && progress.drainUntil(until)) {
            // the transmit queue is full, or the provider is still connecting: completions free it
        }
        if (rc < 0) {
            s.sendDone = true;
            if (!s.finished) {
                // the receive is posted: it must be cancelled and complete before the slot is reused; no callback
                s.callback = null;
                s.attached = null;
                finish(s, rc);
            }
            maybeFree(s);
            return rc;
        }
        return 0;
    }

    private int startInternal(Target t, int kind, long timeoutMillis) {
        if (freeSlotCount == 0) {
            return -Errno.EAGAIN;
        }
        RequestSlot s = takeSlot();
        s.internal = kind;
        s.target = t;
        long n = 0;
        if (kind == RequestSlot.INTERNAL_HELLO) {
            MemorySegment.copy(selfAddress, 0, s.sendPayload, ValueLayout.JAVA_BYTE, 0, selfAddress.length);
            n = selfAddress.length;
        } else {
            t.pingInFlight = true;
        }
        return launch(s, n, timeoutMillis);
    }

    /** Ends a request: status decided, receive cancelled if still posted, bulk released on error, callback queued. */
    private void finish(RequestSlot s, int status) {
        s.finished = true;
        s.status = status;
        Target t = s.target;
        t.outstanding--;
        if (status < 0 && s.attached != null) {
            s.attached.release();
        }
        if (!s.recvDone) {
            res.ep.cancel(s.recvCtx);
        }
        if (s.internal != RequestSlot.INTERNAL_NONE) {
            finishInternal(s);
            s.callbackDone = true;
            maybeFree(s);
        } else if (s.callback != null) {
            progress.ready(s);
        } else {
            s.callbackDone = true;
            maybeFree(s);
        }
    }

    private void finishInternal(RequestSlot s) {
        Target t = s.target;
        if (s.internal == RequestSlot.INTERNAL_HELLO) {
            if (s.status == 0 && s.recvLength >= HEADER + 8) {
                t.idAtPeer = s.recvBuf.get(LONG, HEADER);
                t.helloStatus = 0;
            } else {
                t.helloStatus = s.status < 0 ? s.status : -Errno.EIO;
            }
        } else {
            t.pingInFlight = false;
            if (s.status == 0) {
                t.lastHeardNanos = System.nanoTime();
            } else if (!t.isDead()) {
                LOG.log(System.Logger.Level.WARNING, "{0} did not answer a ping ({1}); failing its requests",
                        t, Errno.name(-s.status));
                markDead(t, -Errno.EHOSTDOWN);
            }
        }
    }

    private void markDead(Target t, int status) {
        t.deadStatus = -status;
        for (RequestSlot s : slots) {
            if (s.active && !s.finished && s.target == t) {
                finish(s, status);
            }
        }
    }

    private void maybeFree(RequestSlot s) {
        if (s.active && s.finished && s.sendDone && s.recvDone && s.callbackDone) {
            freeSlot(s);
        }
    }

    void onRequestSent(RequestSlot s, int err) {
        s.sendDone = true;
        if (err != 0 && !s.finished) {
            if (s.internal == RequestSlot.INTERNAL_NONE) {
                LOG.log(System.Logger.Level.WARNING, "send to {0} failed ({1}); failing its requests", s.target,
                        Errno.name(err));
            }
            Target t = s.target;
            finish(s, -err);
            if (t.helloStatus == 0) {
                markDead(t, -Errno.EHOSTDOWN);
            }
        }
        maybeFree(s);
    }

    void onResponseReceived(RequestSlot s, CqEntry e, int err) {
        s.recvDone = true;
        if (!s.finished) {
            if (err != 0) {
                finish(s, -err);
            } else {
                s.recvLength = e.len;
                s.target.lastHeardNanos = System.nanoTime();
                int status = e.len >= HEADER ? s.recvBuf.get(INT, 0) : -Errno.EIO;
                finish(s, status);
            }
        }
        maybeFree(s);
    }

    @SuppressWarnings("unchecked")
    void runResponseCallback(RequestSlot s) {
        // runs outside the lock: the callback may forward or respond
        int status = s.status;
        Object out = null;
        if (status == 0) {
            try {
                Object reuse = s.outputReuseRpcId == s.rpc.id ? s.outputReuse : null;
                out = s.rpc.output.decode(s.recvBuf.asSlice(HEADER, s.recvLength - HEADER), reuse);
                s.outputReuse = out;
                s.outputReuseRpcId = s.rpc.id;
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "the output of " + s.rpc + " (" + s.recvLength
                        + " B) does not decode", e);
                status = -Errno.EIO;
            }
        }
        try {
            s.callback.onResponse(s.requestId(), status, out, s.arg);
        } finally {
            progress.lock();
            try {
                s.callbackDone = true;
                maybeFree(s);
            } finally {
                progress.unlock();
            }
        }
    }

    // ---- bulk ---------------------------------------------------------------------------------------

    /** HG_Bulk_create over one native segment: registered for local and remote read and write. */
    public BulkHandle bulkRegister(MemorySegment segment) {
        if (!segment.isNative()) {
            throw new IllegalArgumentException("bulk memory must be native (Arena.allocate), not a heap segment");
        }
        MemoryRegion mr = res.register(segment, Access.READ | Access.WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE
                | Access.SEND | Access.RECV);
        return new BulkHandle(this, segment, mr);
    }

    /**
     * HG_Bulk_transfer: {@code length} bytes between {@code remote} (at {@code remoteOffset}, owned by the
     * peer {@code origin}) and {@code local} (at {@code localOffset}). Returns 0 and later runs
     * {@code callback} from trigger, or a negative errno now (EINVAL for a range outside either side,
     * EAGAIN when all transfer slots are busy).
     */
    public int bulkTransfer(BulkOp op, long origin, BulkDescriptor remote, long remoteOffset, BulkHandle local,
                            long localOffset, long length, BulkCallback callback, Object arg) {
        MemoryRegion mr = local.region();
        if (mr == null || length < 0 || remoteOffset < 0 || localOffset < 0
                || remoteOffset + length > remote.length() || localOffset + length > local.length()) {
            return -Errno.EINVAL;
        }
        progress.lock();
        try {
            if (freeBulkCount == 0) {
                return -Errno.EAGAIN;
            }
            BulkTransfer bt = bulks[freeBulks[--freeBulkCount]];
            bt.outstanding = 0;
            bt.allPosted = false;
            bt.status = 0;
            bt.callback = callback;
            bt.arg = arg;
            MemoryRegion desc = res.localDesc(mr);
            for (long done = 0; done < length; ) {
                long n = Math.min(maxRma, length - done);
                MemorySegment buf = local.segment().asSlice(localOffset + done, n);
                long raddr = remote.address() + remoteOffset + done;
                long until = System.nanoTime() + POST_RETRY_NANOS;
                int rc;
                while ((rc = op == BulkOp.PULL
                        ? res.ep.read(buf, desc, origin, raddr, remote.key(), bt)
                        : res.ep.write(buf, desc, origin, raddr, remote.key(), bt)) == -Errno.EAGAIN
                        && progress.drainUntil(until)) {
                    // transmit queue full
                }
                if (rc < 0) {
                    if (bt.outstanding == 0) {
                        freeBulks[freeBulkCount++] = bt.index;
                        return rc;
                    }
                    bt.status = rc; // what is posted completes; the callback reports the failure
                    break;
                }
                bt.outstanding++;
                done += n;
            }
            bt.allPosted = true;
            if (bt.outstanding == 0) {
                progress.ready(bt);
            }
            return 0;
        } finally {
            progress.unlock();
        }
    }

    void onBulkChunkDone(BulkTransfer bt, int err) {
        bt.outstanding--;
        if (err != 0 && bt.status == 0) {
            bt.status = -err;
        }
        if (bt.outstanding == 0 && bt.allPosted) {
            progress.ready(bt);
        }
    }

    void runBulkCallback(BulkTransfer bt) {
        BulkCallback cb = bt.callback;
        Object arg = bt.arg;
        int status = bt.status;
        progress.lock();
        try {
            bt.callback = null;
            bt.arg = null;
            freeBulks[freeBulkCount++] = bt.index;
        } finally {
            progress.unlock();
        }
        cb.onTransfer(status, arg);
    }

    // ---- progress / trigger -------------------------------------------------------------------------

    /**
     * HG_Progress: drives the endpoint until some callback is ready or {@code timeoutMillis} passes.
     * Returns how many callbacks are ready. With a progress thread it only waits.
     */
    public int progress(long timeoutMillis) {
        return progress.progress(timeoutMillis);
    }

    /** HG_Trigger: runs up to {@code max} ready callbacks on this thread; returns how many ran. */
    public int trigger(int max) {
        return progress.trigger(max);
    }

    /** The registered RPC of {@code id}, or null. */
    Rpc<Object, Object> rpc(int id) {
        return rpcs[id];
    }

    /**
     * The provider says the peer {@code fiAddr} is gone (FI_JF_PEER_FAILED): its targets are dead and their
     * outstanding requests end with EHOSTDOWN now, without waiting for an unanswered ping. Caller holds the lock.
     */
    void onPeerFailed(long fiAddr) {
        for (int i = 0; i < targetList.size(); i++) {
            Target t = targetList.get(i);
            if (t.fiAddr == fiAddr && !t.isDead()) {
                LOG.log(System.Logger.Level.WARNING, "{0} is gone (FI_JF_PEER_FAILED); failing its requests", t);
                markDead(t, -Errno.EHOSTDOWN);
            }
        }
    }

    /** Ends requests past their deadline and pings targets gone quiet; the progress pass calls it every millisecond. */
    void scanDeadlines(long now) {
        for (RequestSlot s : slots) {
            if (s.active && !s.finished && now - s.deadlineNanos >= 0) {
                finish(s, -Errno.ETIMEDOUT);
            }
        }
        for (int i = 0; i < targetList.size(); i++) {
            Target t = targetList.get(i);
            if (t.outstanding > 0 && !t.isDead() && !t.pingInFlight && now - t.lastHeardNanos > pingIntervalNanos) {
                startInternal(t, RequestSlot.INTERNAL_PING, options.peerTimeoutMillis);
            }
        }
    }

    /** Stops the progress thread and closes the endpoint and everything under it; outstanding requests are dropped. */
    @Override
    public void close() {
        progress.stop();
        res.closeWith(poolMr);
        arena.close();
    }
}
