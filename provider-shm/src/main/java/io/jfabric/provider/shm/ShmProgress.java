package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.Wire;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * What moves one endpoint's work (libfabric's smr_progress): reading its ring and handing each command
 * to its protocol, retrying ACKs and pulls that found a peer's ring full, completing sends whose records
 * were consumed, failing operations to peers that died, skipping a ring record a dead sender never
 * finished, and sleeping on the endpoint's doorbell (futex) for sread and the auto-progress thread.
 */
final class ShmProgress implements RecordHandler {
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
    private static final long BLOCKED_GAP_CAP = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int LIVENESS_CLOCK_EVERY = 64;
    private static final int HEAD_CHECK_EVERY = 1024;

    private final ShmEndpointState ep;
    private final ShmRecv recv;
    private final ShmPull pull;
    private final ShmRma rma;
    private final ShmAtomic atomic;
    private final ShmSplitCopy split;
    private final ShmInFlight inFlight;
    private final ShmAckQueue acks;
    private final DeadPeerTally deadPeers = new DeadPeerTally();
    private final ShmPeerWatch peerWatch;
    private final ConsumeWait consumeWait = new ConsumeWait();

    private long lastLivenessScan;
    /** {@link ShmDomain#peerExits} at the last liveness scan: a change means a peer process exited since. */
    private int seenPeerExits;
    /** This endpoint's close notices (ShmRegion#closeNotices) at the last liveness scan. */
    private int seenCloseNotices;
    /** When the stuck-head check last ran while the head was blocked (0: not blocked). */
    private long blockedSince;
    /**
     * How long the head has been seen blocked while this endpoint was polling: the gaps between two checks
     * count at most {@link #BLOCKED_GAP_CAP} each, so a consumer that was itself descheduled or paused (GC,
     * a loaded machine) does not mistake a live sender that was preempted mid-record for a dead one.
     */
    private long blockedFor;
    /**
     * Empty polls since the start; a stuck head (a sender that died mid-record) is looked for only every
     * {@link #HEAD_CHECK_EVERY} of them, because the check reads the ring's tail, a line every producer
     * writes, and polling it would cost a cache-line transfer per message.
     */
    private int emptyPolls;
    private int busyPolls;

    ShmProgress(ShmEndpointState ep, ShmRecv recv, ShmRma rma, ShmAtomic atomic, ShmSplitCopy split,
                ShmInFlight inFlight, ShmAckQueue acks, ShmPeerWatch peerWatch) {
        this.split = split;
        this.peerWatch = peerWatch;
        this.ep = ep;
        this.recv = recv;
        this.pull = recv.pull();
        this.rma = rma;
        this.atomic = atomic;
        this.inFlight = inFlight;
        this.acks = acks;
    }

    /** Drains the ring, retries ACKs and pulls, checks peers' liveness. Returns the work done. */
    int progress() {
        int work = 0;
        if (inFlight.hasDeferred()) {
            // before reading the ring: an ACK in it may be for a send posted after these
            work += inFlight.completeConsumed();
        }
        work += ep.ring.read(this, READ_BATCH);
        if (!acks.isEmpty()) {
            work += acks.flush();
        }
        if (pull.hasRetries()) {
            work += pull.flushRetries();
        }
        int pulls = pull.active();
        if (pulls > 0) {
            work += pull.resumeBlocked();
        }
        long now = 0;
        // the clock (about 25 ns) is read on every 64th poll only: a sender spinning on its CQ for an ACK
        // or a consumed record must not pay it per poll; the scan is due every 50 ms anyway
        if ((inFlight.inFlight() > 0 || pulls > 0 || peerWatch.active())
                && (++busyPolls & (LIVENESS_CLOCK_EVERY - 1)) == 0) {
            now = System.nanoTime();
            int exits = ep.domain.peerExits();
            int notices = ep.region.closeNotices();
            if (now - lastLivenessScan > ShmEndpointState.LIVENESS_INTERVAL || exits != seenPeerExits
                    || notices != seenCloseNotices) {
                lastLivenessScan = now;
                seenPeerExits = exits;
                seenCloseNotices = notices;
                deadPeers.begin();
                work += pull.failToDeadPeers(now, deadPeers) + inFlight.failToDeadPeers(now, deadPeers);
                deadPeers.emit();
                work += peerWatch.scan(now);
            }
        }
        if (work != 0) {
            blockedSince = 0;
        } else if ((++emptyPolls & (HEAD_CHECK_EVERY - 1)) == 0) {
            checkStuckHead(now);
        }
        return work;
    }

    /** Skips the ring's head record when a sender has apparently died between claiming and committing it. */
    private void checkStuckHead(long now) {
        if (!ep.ring.headBlocked()) {
            blockedSince = 0;
            return;
        }
        if (now == 0) {
            now = System.nanoTime();
        }
        if (blockedSince == 0) {
            blockedFor = 0;
        } else {
            blockedFor += Math.min(now - blockedSince, BLOCKED_GAP_CAP);
        }
        blockedSince = now;
        if (blockedFor > UNBLOCK_AFTER && (blockedFor > UNBLOCK_WITHOUT_DEAD_SENDER
                || ep.domain.aKnownPeerDied(now, ShmEndpointState.LIVENESS_INTERVAL))) {
            // a sender died between claiming ring space and committing it: skip its record
            if (ep.ring.unblock()) {
                ShmEndpointState.LOG.log(System.Logger.Level.WARNING, "shm endpoint {0}: skipped a ring record a "
                        + "sender claimed but never finished in {1} ms of polling (it probably died)", ep.address,
                        blockedFor / 1_000_000);
            }
            blockedSince = 0;
        }
    }

    /** RecordHandler: one command from a peer, handed to its protocol. Returns false to leave it in the ring. */
    @Override
    public boolean onRecord(int type, MemorySegment s, long at, int length) {
        switch (type) {
            case Wire.PULL -> {
                return length < Wire.HEADER ? ep.dropCorrupt(type, length) : pull.onPull(s, at);
            }
            case Wire.CHUNK -> {
                return length < Wire.HEADER ? ep.dropCorrupt(type, length) : pull.onChunk(s, at, length);
            }
            case Wire.INLINE -> {
                return length < Wire.INLINE_HEADER ? ep.dropCorrupt(type, length) : recv.onMessage(type, s, at, length);
            }
            case Wire.BOUNCE, Wire.CMA, Wire.RTS -> {
                return length < Wire.HEADER ? ep.dropCorrupt(type, length) : recv.onMessage(type, s, at, length);
            }
            case Wire.ACK -> {
                if (length < Wire.HEADER) {
                    return ep.dropCorrupt(type, length);
                }
                inFlight.onAck(Wire.getLong(s, at + Wire.OP_ID), Wire.getInt(s, at + Wire.STATUS));
                return true;
            }
            case Wire.RMA_READ, Wire.RMA_WRITE -> {
                return length < Wire.RMA_HEADER ? ep.dropCorrupt(type, length) : rma.onCommand(type, s, at, length);
            }
            case Wire.ATOMIC -> {
                return length < Wire.ATOMIC_HEADER ? ep.dropCorrupt(type, length) : atomic.onCommand(s, at, length);
            }
            case Wire.PUSH -> {
                return length < Wire.HEADER ? ep.dropCorrupt(type, length) : split.onPush(s, at);
            }
            case Wire.ATOMIC_RESULT -> {
                return length < Wire.HEADER ? ep.dropCorrupt(type, length) : atomic.onResult(s, at, length);
            }
            default -> {
                return ep.dropCorrupt(type, length);
            }
        }
    }

    @Override
    public void onCorruptRecord(long position, int length) {
        ep.corruptRecord(position, length);
    }

    // ---- blocking (sread, the auto-progress thread) ----------------------------------------------

    /** Sleeps on this endpoint's doorbell until a peer writes into the ring, or {@code nanos} pass. */
    void block(long nanos, boolean closed) {
        try {
            long limit = armForSleep(nanos, closed);
            if (limit > 0 && !consumeWait.sleep(ep.doorbell.address(), limit)) {
                ep.doorbell.await(ep.futex, limit);
            }
        } finally {
            sleepDone();
        }
    }

    /**
     * Arms the doorbell for a sleep of at most {@code nanos}; returns how long the sleep may last, or 0 when
     * there is work already (or the endpoint closed). Call {@link #sleepDone} afterwards in any case. Split
     * from {@link #block} so that a domain can sleep on the doorbells of all its endpoints at once.
     */
    long armForSleep(long nanos, boolean closed) {
        ep.doorbell.arm();
        // after arming: a wakeup() that read the doorbell before it was armed has left its mark in the domain
        if (!ep.ring.isEmpty() || !acks.isEmpty() || closed || ep.domain.wakeRequested()) {
            return 0;
        }
        boolean watching = inFlight.inFlight() > 0 || peerWatch.active();
        // after arming: a peer that announced its close before it found the doorbell armed is seen here
        if (watching && ep.region.closeNotices() != seenCloseNotices) {
            return 0;
        }
        // with operations in flight, wake up now and then to notice peers gone without a word
        long limit = watching ? Math.min(nanos, ShmEndpointState.LIVENESS_INTERVAL) : nanos;
        if (inFlight.hasDeferred()) {
            // a peer that consumes a deferred send does not ring this doorbell: sleep on its head as well
            long l = consumeWait.arm(inFlight.oldestDeferred());
            if (l == 0) {
                return 0;
            }
            limit = Math.min(limit, l);
        }
        return limit;
    }

    /** The sleep {@link #armForSleep} prepared is over. */
    void sleepDone() {
        consumeWait.disarm();
        ep.doorbell.disarm();
        ep.domain.wakeSeen();
        busyPolls = LIVENESS_CLOCK_EVERY - 1; // after a sleep the next progress looks at the clock
    }

    /** The peer's head word {@link #armForSleep} armed beside the doorbell, for a sleep on several words; 0: none. */
    long consumeWaitAddress() {
        return consumeWait.armed() ? consumeWait.address() : 0;
    }

    int consumeWaitExpected() {
        return consumeWait.expected();
    }

    /** After the last sleep: waits for one in progress to end. */
    void close() {
        consumeWait.close();
    }

    /** Ends a concurrent {@link #block}. */
    void wakeup() {
        // no ring record was claimed, so no CAS orders what the caller wrote before against the armed word
        java.lang.invoke.VarHandle.fullFence();
        ep.doorbell.ring();
    }
}
