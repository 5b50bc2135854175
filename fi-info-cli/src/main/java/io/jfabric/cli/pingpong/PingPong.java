package io.jfabric.cli.pingpong;

import io.jfabric.Access;
import io.jfabric.AddressFormat;
import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.EndpointType;
import io.jfabric.Endpoint;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.FabricObject;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.Mode;
import io.jfabric.MrMode;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.PassiveEndpoint;
import io.jfabric.TaggedMsg;
import io.jfabric.WaitObj;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * The ping-pong benchmark of libfabric's fi_pingpong (util/pingpong.c) on jfabric: same hints, same
 * resource set-up, same message sequence (a ping and a pong per iteration, inject below inject_size, one
 * receive always posted, a "fin" message sent with FI_TRANSMIT_COMPLETE at the end) and the same out-of-band
 * control protocol, so either side may be the C tool. Differences: every wait on the peer is bounded by
 * {@link PingPongOptions#timeoutMs}, and failures say what went wrong in one line on stderr.
 */
final class PingPong implements AutoCloseable {
    static final long TAG = 1234;
    /** PP_MAX_DATA_MSG: 4 MiB + 2 MiB, the largest size -S all reaches. */
    static final long MAX_DATA_MSG = (1L << 22) + (1L << 21);
    static final long MAX_CTRL_MSG = 64;
    static final long MR_KEY = 0xC0DE;
    private static final long PAGE = 4096;
    private static final byte[] FIN = {'f', 'i', 'n', 0};

    private final PingPongOptions opts;
    private final PrintStream err;
    private final ResultTable table;
    private final IntegrityPattern pattern = new IntegrityPattern();
    private final Deque<FabricObject> opened = new ArrayDeque<>();
    private final Arena arena = Arena.ofShared();

    private ControlChannel ctrl;
    private FabricInfo hints;
    private FabricInfo fi;
    private Fabric fabric;
    private Domain domain;
    private EventQueue eq;
    private PassiveEndpoint pep;
    private Endpoint ep;
    private CompletionQueue txCq;
    private CompletionQueue rxCq;
    private AddressVector av;
    private MemoryRegion mr;

    private MemorySegment rxBuf;
    private MemorySegment txBuf;
    private MemorySegment rxPost;
    private long txSize;
    private long rxSize;
    private long txPrefix;
    private long rxPrefix;
    private long injectSize;
    private long remoteFiAddr = Fabrics.ADDR_UNSPEC;
    /** Whether {@link #eq} is bound to the endpoint (MSG always; RDM when the provider takes it). */
    private boolean eqBound;
    /** Set while sizes run: notices a dead peer (EQ event, control connection closed) during waits. */
    private PeerWatch watch;
    private boolean goneReported;
    private int refusedPosts;

    private long txSeq;
    private long rxSeq;
    private long txCqCntr;
    private long rxCqCntr;
    private static final int POLLS_PER_CLOCK_READ = 1024;
    private long cntAckMsg;

    private final CqEntry comp = new CqEntry();
    private final CqErrEntry compErr = new CqErrEntry();
    private final Object txCtx = new Object();
    private final Object rxCtx = new Object();

    PingPong(PingPongOptions opts, PrintStream out, PrintStream err) {
        this.opts = opts;
        this.err = err;
        this.table = new ResultTable(out);
    }

    /** Runs the whole exchange; returns 0 on success, otherwise a positive exit status (an errno). */
    int run() {
        try {
            hints = buildHints();
            int rc = switch (opts.epType()) {
                case MSG -> runMsg();
                case RDM -> runRdm(false);
                case DGRAM -> runRdm(true);
                default -> {
                    err.println("Endpoint unsupported: " + opts.epType().cName());
                    yield -Errno.EINVAL;
                }
            };
            return Math.abs(rc);
        } catch (FabricException e) {
            err.println("jfabric pingpong: " + e.getMessage());
            return e.errno();
        } catch (IOException e) {
            err.println("jfabric pingpong: " + e.getMessage());
            return Errno.EIO;
        }
    }

    private FabricInfo buildHints() {
        FabricInfo h = FabricInfo.hints();
        h.epAttr.type = opts.epType();
        h.caps = opts.tagged() ? Caps.TAGGED : Caps.MSG;
        h.mode = Mode.CONTEXT | Mode.CONTEXT2 | Mode.MSG_PREFIX;
        h.domainAttr.mrMode = MrMode.LOCAL | MrMode.ALLOCATED | MrMode.PROV_KEY | MrMode.VIRT_ADDR;
        h.fabricAttr.provName = opts.provider();
        h.domainAttr.name = opts.domain();
        if (opts.threading() != null) {
            h.domainAttr.threading = opts.threading();
        }
        if (opts.epType() == EndpointType.DGRAM && opts.sizeGiven()) {
            h.epAttr.maxMsgSize = opts.size();
        }
        return h;
    }

    // ---- set-up -------------------------------------------------------------------------------

    private void openControl() throws IOException {
        ctrl = opts.isClient()
                ? ControlChannel.connect(opts.dstAddr(), port(opts.dstPort()), opts.srcPort(), opts.ipv6())
                : ControlChannel.serve(port(opts.srcPort()), opts.ipv6(), (int) Math.min(Integer.MAX_VALUE, opts.timeoutMs()));
        ctrl.readTimeout(opts.timeoutMs());
    }

    private int runMsg() throws IOException {
        openControl();
        debug("control connection up");
        int rc;
        if (opts.isClient()) {
            ControlChannel.Name name = ctrl.recvName();
            hints.addrFormat = AddressFormat.of(name.addrFormat());
            hints.destAddr = name.bytes();
            fi = first(Fabrics.getInfo(hints));
            openFabricResources();
            allocActiveResources();
            initEndpoint();
            ep.connect(name.bytes(), null);
            rc = awaitConnected();
        } else {
            FabricInfo pepInfo = first(Fabrics.getInfo(hints));
            fabric = track(Fabrics.openFabric(pepInfo));
            eq = track(fabric.openEq(eqAttr()));
            pep = track(fabric.openPassiveEndpoint(pepInfo));
            pep.bind(eq);
            pep.listen();
            ctrl.sendName(pep.getName(), pepInfo.addrFormat.value());
            EqEntry entry = new EqEntry();
            rc = awaitEvent(entry, EqEvent.CONNREQ);
            if (rc != 0) {
                return rc;
            }
            fi = entry.info;
            try {
                domain = track(fabric.openDomain(fi));
                allocActiveResources();
                initEndpoint();
                ep.accept(null);
            } catch (FabricException e) {
                pep.reject(fi.handle, null);
                throw e;
            }
            rc = awaitConnected();
        }
        if (rc != 0) {
            return rc;
        }
        debug("connected");
        rc = runSuite();
        if (rc == 0) {
            rc = finish();
        }
        ep.shutdown(0);
        return rc;
    }

    private int runRdm(boolean dgram) throws IOException {
        openControl();
        byte[] remName;
        byte[] localName;
        if (opts.isClient()) {
            ControlChannel.Name name = ctrl.recvName();
            hints.addrFormat = AddressFormat.of(name.addrFormat());
            hints.destAddr = name.bytes();
            remName = name.bytes();
            fi = first(Fabrics.getInfo(hints));
            openFabricResources();
            allocActiveResources();
            initEndpoint();
            localName = ep.getName();
            ctrl.sendName(localName, fi.addrFormat.value());
            remoteFiAddr = av.insert(remName);
            if ((fi.domainAttr.caps & Caps.LOCAL_COMM) != 0) {
                av.insert(localName);
            }
        } else {
            fi = first(Fabrics.getInfo(hints));
            openFabricResources();
            allocActiveResources();
            initEndpoint();
            localName = ep.getName();
            ctrl.sendName(localName, fi.addrFormat.value());
            remName = ctrl.recvName().bytes();
            if ((fi.domainAttr.caps & Caps.LOCAL_COMM) != 0) {
                av.insert(localName);
            }
            remoteFiAddr = av.insert(remName);
        }
        if (dgram) {
            // fi_pingpong posts a second receive so that the "fin" always finds one
            int rc = tagged() ? ep.trecv(rxPost, mr, 0, TAG, 0, rxCtx) : ep.recv(rxPost, mr, 0, rxCtx);
            if (rc != 0) {
                return printErr("fi_recv", rc);
            }
        }
        int rc = runSuite();
        return rc == 0 ? finish() : rc;
    }

    private static int port(int p) {
        return p == 0 ? ControlChannel.DEFAULT_PORT : p;
    }

    private FabricInfo first(List<FabricInfo> infos) {
        FabricInfo i = infos.getFirst();
        debug("using " + i);
        return i;
    }

    private EqAttr eqAttr() {
        EqAttr a = EqAttr.defaults();
        a.waitObj = WaitObj.UNSPEC;
        return a;
    }

    private void openFabricResources() {
        fabric = track(Fabrics.openFabric(fi));
        eq = track(fabric.openEq(eqAttr()));
        domain = track(fabric.openDomain(fi));
    }

    private void allocActiveResources() {
        if ((fi.txAttr.mode & Mode.MSG_PREFIX) != 0) {
            txPrefix = fi.epAttr.msgPrefixSize;
        }
        if ((fi.rxAttr.mode & Mode.MSG_PREFIX) != 0) {
            rxPrefix = fi.epAttr.msgPrefixSize;
        }
        txSize = opts.sizeGiven() ? opts.size() : MAX_DATA_MSG;
        if (Long.compareUnsigned(txSize, fi.epAttr.maxMsgSize) > 0) { // size_t: SIZE_MAX arrives as -1
            txSize = fi.epAttr.maxMsgSize;
        }
        rxSize = txSize;
        long rxPart = Math.max(rxSize, MAX_CTRL_MSG) + rxPrefix;
        long txPart = Math.max(txSize, MAX_CTRL_MSG) + txPrefix;
        long bufSize = rxPart + txPart + PAGE;
        MemorySegment buf = arena.allocate(bufSize, PAGE);
        rxBuf = buf.asSlice(0, rxPart);
        long txOff = (rxPart + PAGE - 1) & -PAGE;
        txBuf = buf.asSlice(txOff, Math.min(txPart, bufSize - txOff));
        rxPost = rxBuf;
        if ((fi.domainAttr.mrMode & MrMode.LOCAL) != 0) {
            mr = track(domain.registerMemory(buf, Access.SEND | Access.RECV, 0, MR_KEY, 0));
        }
        injectSize = fi.txAttr.injectSize;

        CqAttr cqAttr = CqAttr.of(CqFormat.CONTEXT, fi.txAttr.size);
        cqAttr.waitObj = WaitObj.NONE;
        txCq = track(domain.openCq(cqAttr));
        cqAttr = CqAttr.of(CqFormat.CONTEXT, fi.rxAttr.size);
        cqAttr.waitObj = WaitObj.NONE;
        rxCq = track(domain.openCq(cqAttr));
        if (fi.epAttr.type == EndpointType.RDM || fi.epAttr.type == EndpointType.DGRAM) {
            // like fi_pingpong: the info's AV type, or the provider's choice when the info leaves it open
            av = track(domain.openAv(AvAttr.of(fi.domainAttr.avType)));
        }
        ep = track(domain.openEndpoint(fi));
    }

    private void initEndpoint() {
        if (fi.epAttr.type == EndpointType.MSG) {
            ep.bind(eq);
            eqBound = true;
        } else {
            eqBound = bindPeerFailureEq();
        }
        if (av != null) {
            ep.bind(av);
        }
        ep.bind(txCq, BindFlags.TRANSMIT);
        ep.bind(rxCq, BindFlags.RECV);
        ep.enable();
        int rc = postRx();
        if (rc != 0) {
            throw new FabricException(-rc, "posting the first receive failed");
        }
    }

    /** RDM: the EQ hears FI_JF_PEER_FAILED (jfabric's providers); a provider that takes no EQ there still runs. */
    private boolean bindPeerFailureEq() {
        try {
            ep.bind(eq);
            return true;
        } catch (FabricException e) {
            debug("no EQ on the " + fi.epAttr.type + " endpoint (" + e.getMessage() + "); the control connection"
                    + " alone tells that the peer died");
            return false;
        }
    }

    private int awaitConnected() {
        EqEntry entry = new EqEntry();
        int rc = awaitEvent(entry, EqEvent.CONNECTED);
        if (rc == 0 && entry.fid != ep) {
            err.println("Unexpected CM event " + EqEvent.toString(EqEvent.CONNECTED) + " fid " + entry.fid
                    + " (ep " + ep + ")");
            return -Errno.EOTHER;
        }
        return rc;
    }

    private int awaitEvent(EqEntry entry, int expected) {
        int timeout = opts.timeoutMs() <= 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, opts.timeoutMs());
        int rc = eq.sread(entry, timeout, 0);
        if (rc == -Errno.EAVAIL) {
            EqErrEntry e = new EqErrEntry();
            eq.readError(e, 0);
            err.println("eq_readerr: " + eq.strerror(e.provErrno, e.errData) + " (" + Errno.name(e.err) + ")");
            return -e.err;
        }
        if (rc == -Errno.EAGAIN) {
            err.println("no " + EqEvent.toString(expected) + " within " + opts.timeoutMs() + " ms");
            return -Errno.ETIMEDOUT;
        }
        if (rc < 0) {
            return printErr("fi_eq_sread", rc);
        }
        if (rc != expected) {
            err.println("Unexpected CM event " + EqEvent.toString(rc) + " (expected " + EqEvent.toString(expected) + ")");
            return -Errno.EOTHER;
        }
        return 0;
    }

    // ---- the benchmark ------------------------------------------------------------------------

    private int runSuite() throws IOException {
        String fabricPeer = remoteFiAddr == Fabrics.ADDR_UNSPEC ? null : av.straddr(av.lookup(remoteFiAddr));
        watch = new PeerWatch(ctrl, eqBound ? eq : null, fabricPeer);
        debug("exchanging with the peer " + watch.peer());
        try (java.io.Closeable stuck = ctrl.exitIfStuckAfterPeerCloses("jfabric pingpong: the peer " + watch.peer()
                + " is gone: it closed the control connection (the process exited)")) {
            for (long size : TestSizes.of(opts, txSize)) {
                cntAckMsg = 0;
                int rc = pingpong(size);
                if (rc != 0) {
                    if (!goneReported) {
                        err.println("jfabric pingpong: the exchange with the peer " + watch.peer() + " failed ("
                                + Errno.name(-rc) + ")");
                    }
                    return rc;
                }
            }
            return 0;
        } finally {
            watch = null; // the peer may close its control connection once the exchange is over
        }
    }

    private int pingpong(long size) throws IOException {
        ctrl.sync();
        MemorySegment tx = txBuf.asSlice(0, size + txPrefix);
        MemorySegment txPayload = txBuf.asSlice(txPrefix, size);
        MemorySegment rxPayload = rxBuf.asSlice(rxPrefix, size);
        boolean inject = Long.compareUnsigned(size, injectSize) < 0;
        if (opts.warmup() > 0) {
            int rc = roundTrips(opts.warmup(), tx, txPayload, rxPayload, size, inject);
            if (rc != 0) {
                return rc;
            }
            cntAckMsg = 0;
            ctrl.sync();
        }
        long start = System.nanoTime();
        int rc = roundTrips(opts.iterations(), tx, txPayload, rxPayload, size, inject);
        if (rc != 0) {
            return rc;
        }
        long end = System.nanoTime();
        long acked = ctrl.exchangeCount(cntAckMsg);
        cntAckMsg = acked;
        // fi_pingpong times in whole microseconds (gettimeofday)
        table.row(size, opts.iterations(), cntAckMsg, Math.max(1, (end - start) / 1000), 2);
        return 0;
    }

    /**
     * Runs {@code count} round trips in calls of {@link #ROUND_TRIPS_PER_CALL}. One long loop would be compiled by
     * C2 on stack (OSR) during the warm-up, and leaving it at the warm-up's end discards that code: the timed loop
     * then started in C1 code while C2 compiled it again on one of a 2-core machine's two polling CPUs, and with
     * bench/compare's 50,000 timed round trips most of the timed window went so. A short loop in a method called
     * thousands of times gets an ordinary C2 compilation that the warm-up and the timed run share. The driver loop
     * here costs one call per batch, compiled or not, so where its own code runs does not show.
     */
    private int roundTrips(int count, MemorySegment tx, MemorySegment txPayload, MemorySegment rxPayload, long size,
                           boolean inject) {
        for (int done = 0; done < count; done += ROUND_TRIPS_PER_CALL) {
            int rc = roundTripBatch(Math.min(ROUND_TRIPS_PER_CALL, count - done), tx, txPayload, rxPayload, size, inject);
            if (rc != 0) {
                return rc;
            }
        }
        return 0;
    }

    private static final int ROUND_TRIPS_PER_CALL = 64;

    private int roundTripBatch(int count, MemorySegment tx, MemorySegment txPayload, MemorySegment rxPayload, long size,
                               boolean inject) {
        for (int i = 0; i < count; i++) {
            int rc;
            if (opts.isClient()) {
                rc = ping(tx, txPayload, size, inject);
                if (rc == 0) {
                    rc = pong(rxPayload, size);
                }
            } else {
                rc = pong(rxPayload, size);
                if (rc == 0) {
                    rc = ping(tx, txPayload, size, inject);
                }
            }
            if (rc != 0) {
                return rc;
            }
        }
        return 0;
    }

    /** pp_tx or pp_inject. */
    private int ping(MemorySegment tx, MemorySegment payload, long size, boolean inject) {
        if (opts.verify()) {
            pattern.fill(payload, size);
        }
        int rc;
        if (inject) {
            rc = postTx(tx, true);
            if (rc == 0) {
                txCqCntr++;
            }
            return rc;
        }
        rc = postTx(tx, false);
        return rc != 0 ? rc : awaitTx(txSeq);
    }

    /** pp_rx: waits for the posted receive, checks it, posts the next. */
    private int pong(MemorySegment payload, long size) {
        int rc = awaitRx(rxSeq);
        if (rc != 0) {
            return rc;
        }
        if (opts.verify()) {
            long bad = pattern.check(payload, size);
            if (bad >= 0) {
                System.out.println("Error at iteration=" + pattern.checkIteration() + " size=" + size + " byte=" + bad);
                return 1;
            }
        }
        rc = postRx();
        if (rc == 0) {
            cntAckMsg++;
        }
        return rc;
    }

    private boolean tagged() {
        return (fi.caps & Caps.TAGGED) != 0;
    }

    /** Posts {@code tx} (fi_inject with {@code inject}, else fi_send), draining the TX CQ while it is refused. */
    private int postTx(MemorySegment tx, boolean inject) {
        long deadline = 0; // read the clock only once a post is refused: a post that takes reads none
        while (true) {
            int rc = inject
                    ? (tagged() ? ep.tinject(tx, remoteFiAddr, TAG) : ep.inject(tx, remoteFiAddr))
                    : (tagged() ? ep.tsend(tx, mr, remoteFiAddr, TAG, txCtx) : ep.send(tx, mr, remoteFiAddr, txCtx));
            if (rc == 0) {
                txSeq++;
                return 0;
            }
            if (rc != -Errno.EAGAIN) {
                String op = inject ? (tagged() ? "tinject" : "inject") : (tagged() ? "t-transmit" : "transmit");
                return printErr(op, rc);
            }
            if (deadline == 0) {
                deadline = deadline();
            }
            rc = drainTx(deadline);
            if (rc != 0) {
                return rc;
            }
        }
    }

    private int postRx() {
        long deadline = 0;
        while (true) {
            int rc = tagged() ? ep.trecv(rxPost, mr, 0, TAG, 0, rxCtx) : ep.recv(rxPost, mr, 0, rxCtx);
            if (rc == 0) {
                rxSeq++;
                return 0;
            }
            if (rc != -Errno.EAGAIN) {
                return printErr(tagged() ? "t-receive" : "receive", rc);
            }
            rc = readOne(rxCq, false);
            if (rc < 0 && rc != -Errno.EAGAIN) {
                return rc;
            }
            if (deadline == 0) {
                deadline = deadline();
            } else if (System.nanoTime() - deadline > 0) {
                return timedOut("a receive slot");
            }
        }
    }

    /** On -FI_EAGAIN from a post: take whatever transmit completions are there. */
    private int drainTx(long deadline) {
        int rc = readOne(txCq, true);
        if (rc < 0 && rc != -Errno.EAGAIN) {
            return rc;
        }
        if ((++refusedPosts & 255) == 0 && peerGone()) {
            return -Errno.ECONNRESET; // a connection being set up again to a peer that died: EAGAIN until refused
        }
        if (System.nanoTime() - deadline > 0) {
            return timedOut("room in the transmit queue");
        }
        return 0;
    }

    /** Whether the watch says the peer is gone (then it says so on stderr, once). */
    private boolean peerGone() {
        String gone = watch == null ? null : watch.goneBecause();
        if (gone != null) {
            err.println("jfabric pingpong: the peer " + watch.peer() + " is gone: " + gone);
            goneReported = true;
        }
        return gone != null;
    }

    private int awaitTx(long total) {
        return await(txCq, true, total, "a transmit completion");
    }

    private int awaitRx(long total) {
        return await(rxCq, false, total, "a receive completion");
    }

    /**
     * Spins on {@code cq} until its counter reaches {@code total}. The clock is read only every
     * {@link #POLLS_PER_CLOCK_READ} empty polls, and the deadline starts at the first such read: fi_pingpong
     * reads no clock while it waits, and a clock read per empty poll is a measurable share of a sub-microsecond
     * round trip.
     */
    private int await(CompletionQueue cq, boolean tx, long total, String what) {
        long deadline = 0;
        int idle = 0;
        while ((tx ? txCqCntr : rxCqCntr) < total) {
            int rc = readOne(cq, tx);
            if (rc == -Errno.EAGAIN) {
                if (++idle % POLLS_PER_CLOCK_READ == 0) {
                    if (peerGone()) {
                        return -Errno.ECONNRESET;
                    }
                    long now = System.nanoTime();
                    if (deadline == 0) {
                        deadline = opts.timeoutMs() <= 0 ? Long.MAX_VALUE / 2 + now : now + opts.timeoutMs() * 1_000_000L;
                    } else if (now - deadline > 0) {
                        return timedOut(what);
                    }
                }
            } else if (rc < 0) {
                return rc;
            } else {
                idle = 0;
                deadline = 0;
            }
        }
        return 0;
    }

    /** One fi_cq_read: 1 (and the counter moves), -EAGAIN, or the negative errno of an error completion. */
    private int readOne(CompletionQueue cq, boolean tx) {
        int rc = cq.read(comp);
        if (rc > 0) {
            if (tx) {
                txCqCntr++;
            } else {
                rxCqCntr++;
            }
            return rc;
        }
        if (rc == -Errno.EAVAIL) {
            if (tx) {
                txCqCntr++;
            } else {
                rxCqCntr++;
            }
            if (cq.readError(compErr, 0) < 0) {
                return printErr("fi_cq_readerr", rc);
            }
            err.println("cq_readerr: " + cq.strerror(compErr.provErrno, compErr.errData) + " ("
                    + Errno.name(compErr.err) + ")");
            return -compErr.err;
        }
        if (rc != -Errno.EAGAIN) {
            return printErr("pp_get_cq_comp", rc);
        }
        return rc;
    }

    private long deadline() {
        return opts.timeoutMs() <= 0 ? Long.MAX_VALUE / 2 + System.nanoTime() : System.nanoTime() + opts.timeoutMs() * 1_000_000L;
    }

    private int timedOut(String what) {
        err.println("no " + what + " within " + opts.timeoutMs() + " ms; is the peer still running?");
        return -Errno.ETIMEDOUT;
    }

    /** pp_finalize: "fin" with FI_TRANSMIT_COMPLETE, wait for the peer's, then close the control channel. */
    private int finish() throws IOException {
        MemorySegment fin = txBuf.asSlice(0, FIN.length + txPrefix);
        MemorySegment.copy(FIN, 0, txBuf, ValueLayout.JAVA_BYTE, 0, FIN.length);
        int rc;
        if (tagged()) {
            TaggedMsg m = new TaggedMsg(1);
            m.set(fin, mr, remoteFiAddr, new Object());
            m.tag = TAG;
            rc = ep.tsendmsg(m, OpFlags.TRANSMIT_COMPLETE);
        } else {
            Msg m = new Msg(1).set(fin, mr, remoteFiAddr, new Object());
            rc = ep.sendmsg(m, OpFlags.TRANSMIT_COMPLETE);
        }
        if (rc != 0) {
            return printErr(tagged() ? "t-transmit" : "transmit", rc);
        }
        rc = awaitTx(++txSeq);
        if (rc != 0) {
            return rc;
        }
        rc = awaitRx(rxSeq);
        if (rc != 0) {
            return rc;
        }
        if (opts.verify()) {
            for (int i = 0; i < FIN.length; i++) {
                if (rxBuf.get(ValueLayout.JAVA_BYTE, i) != FIN[i]) {
                    err.println("the peer's final message is not \"fin\"");
                    return 1;
                }
            }
        }
        ctrl.close();
        ctrl = null;
        return 0;
    }

    private int printErr(String call, int rc) {
        err.println(call + "(): ret=" + rc + " (" + Errno.strerror(rc) + ")");
        return rc;
    }

    private void debug(String msg) {
        if (opts.debug()) {
            err.println("[debug] " + msg);
        }
    }

    private <T extends FabricObject> T track(T o) {
        opened.push(o);
        return o;
    }

    /** pp_free_res: closes in reverse order of opening, reporting (not throwing) failures. */
    @Override
    public void close() {
        if (ctrl != null) {
            try {
                ctrl.close();
            } catch (IOException e) {
                debug("closing the control connection: " + e);
            }
        }
        while (!opened.isEmpty()) {
            FabricObject o = opened.pop();
            try {
                o.close();
            } catch (RuntimeException e) {
                err.println("fi_close of " + o + ": " + e.getMessage());
            }
        }
        arena.close();
    }
}
