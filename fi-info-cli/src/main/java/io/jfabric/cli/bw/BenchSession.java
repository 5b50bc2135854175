package io.jfabric.cli.bw;

import io.jfabric.Access;
import io.jfabric.AddressFormat;
import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
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
import io.jfabric.OpFlags;
import io.jfabric.MrMode;
import io.jfabric.PassiveEndpoint;
import io.jfabric.WaitObj;
import io.jfabric.cli.pingpong.ControlChannel;
import io.jfabric.cli.pingpong.PeerWatch;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The fabric set-up the bandwidth tools share, fabtests' {@code ft_init_fabric} / {@code ft_start_server} +
 * {@code ft_client_connect} in one place: hints from the options, the out-of-band {@link ControlChannel} of
 * fi_pingpong for exchanging names (and, for RMA, the target's key and address), then a connected MSG
 * endpoint or an RDM endpoint with the peer in its AV. One registered buffer holds the send slots, the
 * receive slots and the RMA target area. Difference from fabtests: every wait is bounded by
 * {@link BenchOptions#timeoutMs()}.
 */
final class BenchSession implements AutoCloseable {
    private static final long PAGE = 4096;
    /** Bytes of send (and of receive) slots at most: 64 MiB, so 16 MiB messages run four at a time. */
    static final long AREA_CAP = 64L << 20;

    final BenchOptions opts;
    private final Deque<FabricObject> opened = new ArrayDeque<>();
    private final Arena arena = Arena.ofShared();

    ControlChannel ctrl;
    /** Capabilities a tool needs beyond MSG/TAGGED and RMA (jfabric atomic: FI_ATOMIC), set before open. */
    long extraCaps;
    FabricInfo fi;
    Fabric fabric;
    Domain domain;
    EventQueue eq;
    Endpoint ep;
    CompletionQueue txCq;
    CompletionQueue rxCq;
    AddressVector av;
    MemoryRegion mr;
    long peer = Fabrics.ADDR_UNSPEC;
    /** Whether {@link #eq} is bound to the endpoint (MSG always; RDM when the provider takes it). */
    private boolean eqBound;
    /** Notices a dead peer while the benchmark waits; set once everything is open. */
    PeerWatch watch;

    /** The whole registered buffer: [tx slots][rx slots][rma area]. */
    MemorySegment buffer;
    MemorySegment txArea;
    MemorySegment rxArea;
    MemorySegment rmaArea;
    long txPrefix;
    long rxPrefix;

    /** The peer's RMA target: address to use in the remote iov and its key. */
    long remoteAddr;
    long remoteKey;

    BenchSession(BenchOptions opts) {
        this.opts = opts;
    }

    /**
     * Opens everything and connects; {@code rmaBytes} &gt; 0 also sizes and exchanges an RMA target area.
     *
     * @param window  operations in flight wanted; each direction gets room for that many of the largest
     *                message, capped at {@link #AREA_CAP} (large sizes then run with a smaller window)
     * @param maxSize the largest message
     */
    void open(int window, long maxSize, long rmaBytes) throws IOException {
        FabricInfo hints = hints(rmaBytes > 0);
        ctrl = opts.isClient()
                ? ControlChannel.connect(opts.dstAddr(), port(opts.dstPort()), opts.srcPort(), false)
                : ControlChannel.serve(port(opts.srcPort()), false, (int) Math.min(Integer.MAX_VALUE, opts.timeoutMs()));
        ctrl.readTimeout(opts.timeoutMs());
        if (opts.epType() == EndpointType.MSG) {
            openMsg(hints, window, maxSize, rmaBytes);
        } else {
            openRdm(hints, window, maxSize, rmaBytes);
        }
        if (rmaBytes > 0) {
            exchangeRmaTarget();
        }
        watch = new PeerWatch(ctrl, eqBound ? eq : null, av == null ? null : av.straddr(av.lookup(peer)));
    }

    private FabricInfo hints(boolean rma) {
        FabricInfo h = FabricInfo.hints();
        h.epAttr.type = opts.epType();
        h.caps = (opts.tagged() ? Caps.TAGGED : Caps.MSG) | (rma ? Caps.RMA : 0) | extraCaps;
        h.mode = Mode.CONTEXT | Mode.CONTEXT2 | Mode.MSG_PREFIX;
        h.domainAttr.mrMode = MrMode.LOCAL | MrMode.ALLOCATED | MrMode.PROV_KEY | MrMode.VIRT_ADDR;
        h.fabricAttr.provName = opts.provider();
        if (opts.threading() != null) {
            h.domainAttr.threading = opts.threading();
        }
        return h;
    }

    private static int port(int p) {
        return p == 0 ? ControlChannel.DEFAULT_PORT : p;
    }

    private void openMsg(FabricInfo hints, int window, long maxSize, long rmaBytes) throws IOException {
        if (opts.isClient()) {
            ControlChannel.Name name = ctrl.recvName();
            hints.addrFormat = AddressFormat.of(name.addrFormat());
            hints.destAddr = name.bytes();
            fi = Fabrics.getInfo(hints).getFirst();
            fabric = track(Fabrics.openFabric(fi));
            eq = track(fabric.openEq(eqAttr()));
            domain = track(fabric.openDomain(fi));
            allocate(window, maxSize, rmaBytes);
            ep.connect(name.bytes(), null);
        } else {
            FabricInfo pepInfo = Fabrics.getInfo(hints).getFirst();
            fabric = track(Fabrics.openFabric(pepInfo));
            eq = track(fabric.openEq(eqAttr()));
            PassiveEndpoint pep = track(fabric.openPassiveEndpoint(pepInfo));
            pep.bind(eq);
            pep.listen();
            ctrl.sendName(pep.getName(), pepInfo.addrFormat.value());
            EqEntry entry = new EqEntry();
            awaitEvent(entry, EqEvent.CONNREQ);
            fi = entry.info;
            try {
                domain = track(fabric.openDomain(fi));
                allocate(window, maxSize, rmaBytes);
                ep.accept(null);
            } catch (FabricException e) {
                pep.reject(fi.handle, null);
                throw e;
            }
        }
        awaitEvent(new EqEntry(), EqEvent.CONNECTED);
    }

    private void openRdm(FabricInfo hints, int window, long maxSize, long rmaBytes) throws IOException {
        byte[] remote;
        if (opts.isClient()) {
            ControlChannel.Name name = ctrl.recvName();
            hints.addrFormat = AddressFormat.of(name.addrFormat());
            hints.destAddr = name.bytes();
            remote = name.bytes();
        } else {
            remote = null;
        }
        fi = Fabrics.getInfo(hints).getFirst();
        fabric = track(Fabrics.openFabric(fi));
        eq = track(fabric.openEq(eqAttr()));
        domain = track(fabric.openDomain(fi));
        allocate(window, maxSize, rmaBytes);
        ctrl.sendName(ep.getName(), fi.addrFormat.value());
        if (remote == null) {
            remote = ctrl.recvName().bytes();
        }
        peer = av.insert(remote);
    }

    private EqAttr eqAttr() {
        EqAttr a = EqAttr.defaults();
        a.waitObj = WaitObj.UNSPEC;
        return a;
    }

    private void allocate(int window, long maxSize, long rmaBytes) {
        if ((fi.txAttr.mode & Mode.MSG_PREFIX) != 0) {
            txPrefix = fi.epAttr.msgPrefixSize;
        }
        if ((fi.rxAttr.mode & Mode.MSG_PREFIX) != 0) {
            rxPrefix = fi.epAttr.msgPrefixSize;
        }
        if (Long.compareUnsigned(maxSize, fi.epAttr.maxMsgSize) > 0) {
            throw new FabricException(Errno.EMSGSIZE, "message size " + maxSize + " is above the provider's max_msg_size "
                    + Long.toUnsignedString(fi.epAttr.maxMsgSize) + "; pass a smaller -S");
        }
        long maxStride = stride(maxSize);
        long txBytes = align(Math.max(maxStride, Math.min(AREA_CAP, maxStride * window)), PAGE);
        long rmaPart = align(Math.max(rmaBytes, 0), PAGE);
        buffer = arena.allocate(2 * txBytes + rmaPart, PAGE);
        txArea = buffer.asSlice(0, txBytes);
        rxArea = buffer.asSlice(txBytes, txBytes);
        rmaArea = buffer.asSlice(2 * txBytes, rmaPart);
        long access = Access.SEND | Access.RECV;
        if (rmaBytes > 0) {
            access |= Access.READ | Access.WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
        }
        if ((fi.domainAttr.mrMode & MrMode.LOCAL) != 0 || rmaBytes > 0) {
            mr = track(domain.registerMemory(buffer, access, 0, 0xBE7C, 0));
        }
        long cqSize = Math.max(fi.txAttr.size, fi.rxAttr.size);
        CqAttr cqAttr = CqAttr.of(CqFormat.DATA, Math.max(cqSize, 2L * window + 16));
        cqAttr.waitObj = WaitObj.NONE;
        txCq = track(domain.openCq(cqAttr));
        cqAttr = CqAttr.of(CqFormat.DATA, Math.max(cqSize, 2L * window + 16));
        cqAttr.waitObj = WaitObj.NONE;
        rxCq = track(domain.openCq(cqAttr));
        if (fi.epAttr.type != EndpointType.MSG) {
            av = track(domain.openAv(AvAttr.of(fi.domainAttr.avType)));
        }
        if (opts.more()) {
            fi.txAttr.opFlags |= OpFlags.COMPLETION; // plain sends still complete; see BenchOptions.more
        }
        ep = track(domain.openEndpoint(fi));
        if (fi.epAttr.type == EndpointType.MSG) {
            ep.bind(eq);
            eqBound = true;
        } else {
            ep.bind(av);
            eqBound = bindPeerFailureEq();
        }
        ep.bind(txCq, BindFlags.TRANSMIT | (opts.more() ? BindFlags.SELECTIVE_COMPLETION : 0));
        ep.bind(rxCq, BindFlags.RECV);
        ep.enable();
    }

    /** {@code message}, followed by the peer's name once it is known and the message does not name it. */
    String namingThePeer(String message) {
        PeerWatch w = watch;
        return w == null || message.contains(ctrl.peer()) ? message : message + " (peer " + w.peer() + ")";
    }

    /** RDM: the EQ hears FI_JF_PEER_FAILED (jfabric's providers); a provider that takes no EQ there still runs. */
    private boolean bindPeerFailureEq() {
        try {
            ep.bind(eq);
            return true;
        } catch (FabricException e) {
            return false; // the control connection alone tells that the peer died
        }
    }

    private static long align(long v, long a) {
        return (v + a - 1) & -a;
    }

    /** Distance between slots for messages of {@code size} bytes (prefix included, cache-line aligned). */
    long stride(long size) {
        return align(Math.max(size, 64) + Math.max(txPrefix, rxPrefix), 64);
    }

    /** How many slots of {@code size} fit in each direction's area. */
    int slotsFor(long size) {
        return (int) Math.min(Integer.MAX_VALUE, txArea.byteSize() / stride(size));
    }

    /** Send slot {@code i}, prefix included, for a message of {@code size} bytes. */
    MemorySegment txSlot(int i, long size) {
        return txArea.asSlice(i * stride(size), size + txPrefix);
    }

    /** Receive slot {@code i}, prefix included, for a message of {@code size} bytes. */
    MemorySegment rxSlot(int i, long size) {
        return rxArea.asSlice(i * stride(size), size + rxPrefix);
    }

    /** The server announces its RMA area (address as the peer must name it, and key); the client learns it. */
    private void exchangeRmaTarget() throws IOException {
        if (opts.isClient()) {
            ByteBuffer b = ByteBuffer.wrap(ctrl.recvName().bytes()).order(ByteOrder.BIG_ENDIAN);
            remoteAddr = b.getLong();
            remoteKey = b.getLong();
        } else {
            long base = (fi.domainAttr.mrMode & MrMode.VIRT_ADDR) != 0 ? buffer.address() : 0;
            long addr = base + (rmaArea.address() - buffer.address());
            ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.BIG_ENDIAN).putLong(addr).putLong(mr.key());
            ctrl.sendName(b.array(), 0);
        }
    }

    private void awaitEvent(EqEntry entry, int expected) {
        int timeout = opts.timeoutMs() <= 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, opts.timeoutMs());
        int rc = eq.sread(entry, timeout, 0);
        if (rc == -Errno.EAVAIL) {
            EqErrEntry e = new EqErrEntry();
            eq.readError(e, 0);
            throw new FabricException(e.err, "connection failed: " + eq.strerror(e.provErrno, e.errData));
        }
        if (rc == -Errno.EAGAIN) {
            throw new FabricException(Errno.ETIMEDOUT, "no " + EqEvent.toString(expected) + " within "
                    + opts.timeoutMs() + " ms; is the peer running with the same -p and -e?");
        }
        if (rc < 0) {
            throw new FabricException(-rc, "fi_eq_sread failed");
        }
        if (rc != expected) {
            throw new FabricException(Errno.EOTHER, "unexpected CM event " + EqEvent.toString(rc) + " (expected "
                    + EqEvent.toString(expected) + ")");
        }
    }

    private <T extends FabricObject> T track(T o) {
        opened.push(o);
        return o;
    }

    /**
     * Both sides meet once more on the control channel after their last size, as fabtests' ft_finalize does. A side
     * that is done may otherwise close while its peer still waits for its last completions, which are already on
     * their way: the peer's watch then sees the control connection close first and reports the peer gone
     * (BwCommandTest met it once: the server's close beat the client's last ACKs through an idle connection).
     */
    void finish() throws IOException {
        ctrl.sync();
    }

    /** Closes in reverse order of opening; failures are reported on stderr, never thrown. */
    @Override
    public void close() {
        if (ctrl != null) {
            try {
                ctrl.close();
            } catch (IOException e) {
                // the peer may have closed first; nothing is lost
            }
        }
        if (ep != null && fi != null && fi.epAttr.type == EndpointType.MSG) {
            try {
                ep.shutdown(0);
            } catch (RuntimeException e) {
                // already down
            }
        }
        while (!opened.isEmpty()) {
            FabricObject o = opened.pop();
            try {
                o.close();
            } catch (RuntimeException e) {
                System.err.println("fi_close of " + o + ": " + e.getMessage());
            }
        }
        arena.close();
    }
}
