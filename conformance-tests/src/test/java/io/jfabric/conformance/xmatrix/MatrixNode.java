package io.jfabric.conformance.xmatrix;

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
import io.jfabric.Endpoint;
import io.jfabric.EndpointOption;
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
import io.jfabric.MrMode;
import io.jfabric.PassiveEndpoint;
import io.jfabric.WaitObj;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One end of a matrix connection in a {@link MatrixPeer} process: a provider's endpoint (MSG or RDM) on
 * loopback, three 4 MiB areas (send, receive, RMA target) in one registration, and the completions read so
 * far. Reading the CQs is what drives a manual-progress provider, so the process calls {@link #pump} whenever
 * it has nothing else to do.
 */
final class MatrixNode implements AutoCloseable {
    static final long AREA = (4L << 20) + (64 << 10);
    /** Small on purpose: the writedata burst cell sends more CQ data than this while the target does not read. */
    static final int CQ_SIZE = 32;
    private static final long MR_KEY = 0xC0FFEE;

    record Completion(Object context, long flags, long len, long buf, long data, long tag, int err, String error) {
    }

    final String provider;
    final EndpointType type;
    private final List<FabricObject> opened = new ArrayList<>();
    private final Arena arena = Arena.ofShared();
    FabricInfo fi;
    private Fabric fabric;
    private EventQueue eq;
    private Domain domain;
    private CompletionQueue txCq;
    private CompletionQueue rxCq;
    private AddressVector av;
    Endpoint ep;
    MemoryRegion mr;
    MemorySegment txArea;
    MemorySegment rxArea;
    MemorySegment rmaArea;
    private MemorySegment all;
    long peer = Fabrics.ADDR_UNSPEC;
    long remoteAddr;
    long remoteKey;
    final ArrayDeque<Completion> tx = new ArrayDeque<>();
    final ArrayDeque<Completion> rx = new ArrayDeque<>();
    /** While set, {@link #pump} leaves the receive CQ alone (an application slow to read it). */
    boolean holdRx;
    private final CqEntry[] entries = CqEntry.array(16);
    private final CqErrEntry err = new CqErrEntry();

    MatrixNode(String provider, EndpointType type) {
        this.provider = provider;
        this.type = type;
    }

    private FabricInfo hints(boolean extras, boolean atomics) {
        FabricInfo h = FabricInfo.hints();
        h.epAttr.type = type;
        h.caps = Caps.MSG | Caps.RMA;
        if (extras) {
            h.caps |= Caps.TAGGED | (type == EndpointType.RDM ? Caps.MULTI_RECV : 0);
        }
        if (atomics) {
            h.caps |= Caps.ATOMIC; // rxm (libfabric's and jfabric's) offers FI_ATOMIC only when asked for
        }
        h.mode = Mode.CONTEXT | Mode.CONTEXT2;
        h.domainAttr.mrMode = MrMode.LOCAL | MrMode.ALLOCATED | MrMode.PROV_KEY | MrMode.VIRT_ADDR;
        h.fabricAttr.provName = provider;
        return h;
    }

    /**
     * The first info on 127.0.0.1 with tagged (and, on RDM, multi-receive and atomics) when offered, with fewer
     * of them otherwise.
     */
    private FabricInfo find(FabricInfo destHints) {
        FabricException first = null;
        for (int tier = 2; tier >= 0; tier--) {
            FabricInfo h = hints(tier > 0, tier == 2 && type == EndpointType.RDM);
            try {
                if (destHints != null) {
                    h.addrFormat = destHints.addrFormat;
                    h.destAddr = destHints.destAddr;
                    return Fabrics.getInfo(Fabrics.API_VERSION, "127.0.0.1", "0", Fabrics.SOURCE, h).getFirst();
                }
                return Fabrics.getInfo(Fabrics.API_VERSION, "127.0.0.1", "0", Fabrics.SOURCE, h).getFirst();
            } catch (FabricException e) {
                first = first == null ? e : first;
            }
        }
        throw first;
    }

    /** Listener side: returns the name the other side connects to (pep for MSG, endpoint for RDM). */
    byte[] listen() {
        fi = find(null);
        fabric = track(Fabrics.openFabric(fi));
        eq = track(fabric.openEq(eqAttr()));
        if (type == EndpointType.MSG) {
            PassiveEndpoint pep = track(fabric.openPassiveEndpoint(fi));
            pep.bind(eq);
            pep.listen();
            return pep.getName();
        }
        domain = track(fabric.openDomain(fi));
        allocate();
        return ep.getName();
    }

    /** MSG listener: accepts the one connection request. */
    void accept(long timeoutMs) {
        EqEntry entry = new EqEntry();
        await(entry, EqEvent.CONNREQ, timeoutMs);
        fi = entry.info;
        domain = track(fabric.openDomain(fi));
        allocate();
        ep.accept(null);
        await(new EqEntry(), EqEvent.CONNECTED, timeoutMs);
    }

    /** Connector side: connects (MSG) or inserts (RDM) the listener's name; returns this endpoint's name. */
    byte[] connect(AddressFormat format, byte[] name, long timeoutMs) {
        FabricInfo dest = FabricInfo.hints();
        dest.addrFormat = format;
        dest.destAddr = name;
        fi = find(dest);
        fabric = track(Fabrics.openFabric(fi));
        eq = track(fabric.openEq(eqAttr()));
        domain = track(fabric.openDomain(fi));
        allocate();
        if (type == EndpointType.MSG) {
            ep.connect(name, null);
            await(new EqEntry(), EqEvent.CONNECTED, timeoutMs);
        } else {
            peer = av.insert(name);
        }
        return ep.getName();
    }

    /** RDM listener: learns the connector's address. */
    void insertPeer(byte[] name) {
        if (type == EndpointType.RDM) {
            peer = av.insert(name);
        }
    }

    private void allocate() {
        if ((fi.mode & Mode.MSG_PREFIX) != 0 || (fi.rxAttr.mode & Mode.MSG_PREFIX) != 0) {
            throw new FabricException(Errno.ENOSYS, provider + " asks for FI_MSG_PREFIX, which the matrix does not offer");
        }
        all = arena.allocate(3 * AREA, 4096);
        txArea = all.asSlice(0, AREA);
        rxArea = all.asSlice(AREA, AREA);
        rmaArea = all.asSlice(2 * AREA, AREA);
        long access = Access.SEND | Access.RECV | Access.READ | Access.WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
        mr = track(domain.registerMemory(all, access, 0, MR_KEY, 0));
        CqAttr a = CqAttr.of(CqFormat.TAGGED, CQ_SIZE);
        a.waitObj = WaitObj.NONE;
        txCq = track(domain.openCq(a));
        a = CqAttr.of(CqFormat.TAGGED, CQ_SIZE);
        a.waitObj = WaitObj.NONE;
        rxCq = track(domain.openCq(a));
        if (type == EndpointType.RDM) {
            av = track(domain.openAv(AvAttr.of(fi.domainAttr.avType)));
        }
        ep = track(domain.openEndpoint(fi));
        ep.bind(txCq, BindFlags.TRANSMIT);
        ep.bind(rxCq, BindFlags.RECV);
        if (av != null) {
            ep.bind(av); // RDM
        } else {
            ep.bind(eq); // MSG: connection events
        }
        ep.enable();
        if ((fi.caps & Caps.MULTI_RECV) != 0) {
            ep.setOpt(EndpointOption.MIN_MULTI_RECV, 1); // a buffer is released only once it is full
        }
    }

    /** The address the other side names byte 0 of the RMA area with. */
    long rmaAddress() {
        return (fi.domainAttr.mrMode & MrMode.VIRT_ADDR) != 0 ? rmaArea.address() : rmaArea.address() - all.address();
    }

    /** The address of {@code seg} (inside this node's registration) for a local RMA descriptor's offset rules. */
    long localOffset(MemorySegment seg) {
        return seg.address() - all.address();
    }

    /** Reads both CQs (the receive CQ unless held) into {@link #tx} and {@link #rx}; drives progress. */
    void pump() {
        drain(txCq, tx);
        if (!holdRx) {
            drain(rxCq, rx);
        } else {
            // progress without taking receive completions: a read of the transmit CQ drives the endpoint too
            txCq.read(entries, 0);
        }
    }

    private void drain(CompletionQueue cq, ArrayDeque<Completion> into) {
        while (true) {
            int n = cq.read(entries, entries.length);
            if (n == -Errno.EAVAIL) {
                if (cq.readError(err, 0) <= 0) {
                    return; // an overrun CQ keeps answering EAVAIL; its error entry was taken already
                }
                into.add(new Completion(err.context, err.flags, err.len, err.buf, err.data, err.tag, err.err,
                        Errno.name(err.err) + " (prov_errno " + err.provErrno + ": "
                                + cq.strerror(err.provErrno, err.errData) + ")"));
                if (err.err == Errno.EOVERRUN) {
                    return; // fatal (fi_cq(3)): every later read gives the same entry
                }
                continue;
            }
            if (n <= 0) {
                return;
            }
            for (int i = 0; i < n; i++) {
                CqEntry e = entries[i];
                into.add(new Completion(e.context, e.flags, e.len, e.buf, e.data, e.tag, 0, null));
            }
            if (n < entries.length) {
                return;
            }
        }
    }

    private EqAttr eqAttr() {
        EqAttr a = EqAttr.defaults();
        a.waitObj = WaitObj.UNSPEC;
        return a;
    }

    private void await(EqEntry entry, int expected, long timeoutMs) {
        int rc = eq.sread(entry, (int) timeoutMs, 0);
        if (rc == -Errno.EAVAIL) {
            EqErrEntry e = new EqErrEntry();
            eq.readError(e, 0);
            throw new FabricException(e.err, "connection failed: " + eq.strerror(e.provErrno, e.errData));
        }
        if (rc != expected) {
            throw new FabricException(Errno.EOTHER, "expected " + EqEvent.toString(expected) + ", eq read gave " + rc);
        }
    }

    private <T extends FabricObject> T track(T o) {
        opened.add(o);
        return o;
    }

    @Override
    public void close() {
        if (ep != null && type == EndpointType.MSG) {
            try {
                ep.shutdown(0);
            } catch (RuntimeException ignored) {
                // already down
            }
        }
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (RuntimeException e) {
                System.err.println("close " + opened.get(i) + ": " + e.getMessage());
            }
        }
        arena.close();
    }
}
