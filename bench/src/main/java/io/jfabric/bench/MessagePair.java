package io.jfabric.bench;

import io.jfabric.Access;
import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
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
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.FabricObject;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.PassiveEndpoint;
import io.jfabric.SharedRxContext;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * A sender and a receiver endpoint of one provider in this process, driven from one thread: connected
 * through a passive endpoint (MSG) or with each other in their AVs (RDM). Each side has its own fabric,
 * domain and CQs, as two processes would. With a shared receive context (RDM only) the receiver's endpoint is
 * bound to an {@code fi_srx_context} and the receives go there. Used by the allocation test and the per-message
 * JMH benchmark.
 */
public final class MessagePair implements AutoCloseable {
    final FabricInfo info;
    Endpoint sender;
    Endpoint receiver;
    CompletionQueue senderTx;
    CompletionQueue senderRx;
    CompletionQueue receiverTx;
    CompletionQueue receiverRx;
    MemoryRegion senderMr;
    MemoryRegion receiverMr;
    Domain receiverDomain;
    /** The receiver's shared receive context, or null when receives go to its endpoint. */
    SharedRxContext receiverSrx;
    long toReceiver = Fabrics.ADDR_UNSPEC;
    long toSender = Fabrics.ADDR_UNSPEC;
    final MemorySegment senderBuf;
    final MemorySegment receiverBuf;

    private final boolean sharedRx;
    private final Deque<FabricObject> opened = new ArrayDeque<>();
    private final Arena arena = Arena.ofShared();

    /** The first info of {@code prov} with {@code type} and {@code caps}, or null when there is none. */
    public static FabricInfo find(String prov, EndpointType type, long caps) {
        return find(prov, type, caps, false);
    }

    /** As {@link #find(String, EndpointType, long)}, asking for rx_ctx_cnt FI_SHARED_CONTEXT when {@code sharedRx}. */
    public static FabricInfo find(String prov, EndpointType type, long caps, boolean sharedRx) {
        FabricInfo h = FabricInfo.hints();
        if (sharedRx) {
            h.epAttr.rxCtxCnt = Fabrics.SHARED_CONTEXT;
        }
        h.fabricAttr.provName = prov;
        h.epAttr.type = type;
        h.caps = caps;
        h.domainAttr.mrMode = MrMode.LOCAL | MrMode.ALLOCATED | MrMode.PROV_KEY | MrMode.VIRT_ADDR;
        try {
            List<FabricInfo> infos = Fabrics.getInfo(h);
            for (FabricInfo i : infos) {
                // loopback only
                if (i.domainAttr.name == null || type != EndpointType.MSG || i.domainAttr.name.equals("lo")) {
                    return i;
                }
            }
            return infos.isEmpty() ? null : infos.getFirst();
        } catch (FabricException e) {
            if (e.errno() == Errno.ENODATA) {
                return null;
            }
            throw e;
        }
    }

    public MessagePair(FabricInfo info, long bufBytes) {
        this(info, bufBytes, false);
    }

    /** A pair whose receiver takes its receives from a shared receive context when {@code sharedRx} (RDM only). */
    public MessagePair(FabricInfo info, long bufBytes, boolean sharedRx) {
        this.info = info;
        this.sharedRx = sharedRx;
        this.senderBuf = arena.allocate(bufBytes, 4096);
        this.receiverBuf = arena.allocate(bufBytes, 4096);
        try {
            if (info.epAttr.type == EndpointType.MSG) {
                if (sharedRx) {
                    throw new IllegalArgumentException("a shared receive context needs an RDM endpoint");
                }
                connect();
            } else {
                openRdm();
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private void connect() {
        FabricInfo pi = info.copy();
        Fabric rf = track(Fabrics.openFabric(pi));
        EventQueue req = track(rf.openEq(EqAttr.defaults()));
        PassiveEndpoint pep = track(rf.openPassiveEndpoint(pi));
        pep.bind(req);
        pep.listen();

        FabricInfo si = info.copy();
        si.destAddr = pep.getName();
        Fabric sf = track(Fabrics.openFabric(si));
        EventQueue seq = track(sf.openEq(EqAttr.defaults()));
        Domain sd = track(sf.openDomain(si));
        sender = endpoint(sd, si, seq, true);
        sender.connect(pep.getName(), null);

        EqEntry e = await(req, EqEvent.CONNREQ, seq);
        FabricInfo ri = e.info;
        Domain rd = track(rf.openDomain(ri));
        receiver = endpoint(rd, ri, req, false);
        receiver.accept(null);
        await(req, EqEvent.CONNECTED, seq);
        await(seq, EqEvent.CONNECTED, req);
    }

    private void openRdm() {
        AddressVector sav = openRdmSide(true);
        AddressVector rav = openRdmSide(false);
        toReceiver = sav.insert(receiver.getName());
        toSender = rav.insert(sender.getName());
    }

    /** One side of the RDM pair, as its own process would open it: fabric, domain, AV and enabled endpoint. */
    private AddressVector openRdmSide(boolean isSender) {
        FabricInfo i = info.copy();
        Fabric f = track(Fabrics.openFabric(i));
        Domain d = track(f.openDomain(i));
        AddressVector av = track(d.openAv(AvAttr.of(i.domainAttr.avType == AvType.UNSPEC ? AvType.MAP : i.domainAttr.avType)));
        if (sharedRx && !isSender) {
            receiverSrx = track(d.srxContext(i.rxAttr.copy(), null));
            i.epAttr.rxCtxCnt = Fabrics.SHARED_CONTEXT;
        }
        Endpoint ep = endpoint(d, i, null, isSender);
        if (sharedRx && !isSender) {
            ep.bind(receiverSrx);
        }
        ep.bind(av);
        ep.enable();
        if (isSender) {
            sender = ep;
        } else {
            receiver = ep;
        }
        return av;
    }

    private Endpoint endpoint(Domain d, FabricInfo i, EventQueue eq, boolean isSender) {
        CompletionQueue tx = track(d.openCq(CqAttr.of(CqFormat.TAGGED, 1024)));
        CompletionQueue rx = track(d.openCq(CqAttr.of(CqFormat.TAGGED, 1024)));
        MemoryRegion mr = null;
        if ((i.domainAttr.mrMode & MrMode.LOCAL) != 0) {
            // an atomic's operands and results are local buffers of the initiator too (fi_mr(3): FI_WRITE, FI_READ)
            long local = (i.caps & Caps.ATOMIC) != 0 ? Access.SEND | Access.RECV | Access.READ | Access.WRITE
                    : Access.SEND | Access.RECV;
            mr = track(d.registerMemory(isSender ? senderBuf : receiverBuf, local, 0, isSender ? 0x5E : 0x4E, 0));
        }
        if (!isSender) {
            receiverDomain = d;
        }
        Endpoint ep = track(d.openEndpoint(i));
        if (eq != null) {
            ep.bind(eq);
        }
        ep.bind(tx, BindFlags.TRANSMIT);
        ep.bind(rx, BindFlags.RECV);
        if (isSender) {
            senderTx = tx;
            senderRx = rx;
            senderMr = mr;
        } else {
            receiverTx = tx;
            receiverRx = rx;
            receiverMr = mr;
        }
        if (eq != null) {
            ep.enable();
        }
        return ep;
    }

    /** Reads {@code eq} until {@code event}, polling {@code other} meanwhile (both sides progress in this thread). */
    private static EqEntry await(EventQueue eq, int event, EventQueue other) {
        EqEntry e = new EqEntry();
        EqEntry scratch = new EqEntry();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            int rc = eq.read(e, 0);
            if (rc == event) {
                return e;
            }
            if (rc >= 0 || rc == -Errno.EAVAIL) {
                throw new FabricException(Errno.EOTHER, "expected " + EqEvent.toString(event) + ", got " + rc);
            }
            int o = other.read(scratch, 0);
            if (o == -Errno.EAVAIL) {
                throw new FabricException(Errno.ECONNREFUSED, "connection failed on the other side");
            }
            Thread.onSpinWait();
        }
        throw new FabricException(Errno.ETIMEDOUT, "no " + EqEvent.toString(event) + " within 10 s");
    }

    /** Registers {@code target} on the receiver's domain for the sender's atomics (FI_REMOTE_READ and FI_REMOTE_WRITE). */
    MemoryRegion registerTarget(MemorySegment target) {
        return track(receiverDomain.registerMemory(target, Access.REMOTE_READ | Access.REMOTE_WRITE, 0, 0x7A, 0));
    }

    /** The address an atomic names for {@code target}: its virtual address under FI_MR_VIRT_ADDR, else 0. */
    long targetAddress(MemorySegment target) {
        return (info.domainAttr.mrMode & MrMode.VIRT_ADDR) != 0 ? target.address() : 0;
    }

    /** A segment of {@code bytes} that lives as long as the pair. */
    MemorySegment allocate(long bytes) {
        return arena.allocate(bytes, 64);
    }

    boolean tagged() {
        return (info.caps & Caps.TAGGED) != 0;
    }

    private <T extends FabricObject> T track(T o) {
        opened.push(o);
        return o;
    }

    @Override
    public void close() {
        while (!opened.isEmpty()) {
            try {
                opened.pop().close();
            } catch (RuntimeException e) {
                // keep closing the rest
            }
        }
        arena.close();
    }
}
