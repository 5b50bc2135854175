package io.jfabric.netty;

import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.EventQueue;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.MsgOrder;
import io.jfabric.Threading;
import io.jfabric.WaitObj;
import io.jfabric.WaitSet;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One provider's fabric and domain as one event loop uses them. Every endpoint, CQ and registration of a channel
 * on that loop is opened here and touched only by the loop's thread, so the domain asks for FI_THREAD_DOMAIN and
 * no provider lock is taken on the data path.
 */
final class LoopDomain implements AutoCloseable {
    /** The mr_mode bits the stream honours: it registers its slots and passes descriptors where asked. */
    static final int SUPPORTED_MR_MODE = MrMode.LOCAL | MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY;

    /**
     * The providers whose channels' CQs stay out of the loop's wait set, so that a loop holding one parks instead
     * (comma-separated, system property {@code jfabric.netty.parkProviders}; none by default): every provider
     * that accepts FI_WAIT_SET wakes its set on an arriving message since the wait sets sleep on the providers'
     * own event sources.
     */
    static final Set<String> PARKS =
            Set.copyOf(List.of(System.getProperty("jfabric.netty.parkProviders", "").split(",")));

    /**
     * A system property that makes a loop register its slots and pooled chunks and pass their descriptors on every
     * provider, as FI_MR_LOCAL providers (verbs) need: a descriptor the provider does not need is allowed and
     * ignored, so this runs the registration path where no such provider is at hand. Read when a loop opens a domain.
     */
    static final String REGISTER_SENDS = "jfabric.netty.registerSends";

    /** How the bridge names libfabric's own providers ("libfabric:shm"). */
    private static final String BRIDGE_PREFIX = "libfabric:";

    final String provider;
    final FabricInfo info;
    final Fabric fabric;
    final Domain domain;
    final boolean needsLocalDesc;
    /** Pooled chunks registered for in-place sends, where the provider wants a local descriptor. */
    final RegistrationCache registrations;
    /** The segments in-place sends read from. */
    final PayloadViews payloads = new PayloadViews();
    /**
     * Registrations every loop domain of the process holds now (slots and cached chunks); the tests assert that
     * closing every channel brings it back to where it was.
     */
    static final AtomicLong LIVE_REGISTRATIONS = new AtomicLong();
    private final IdleWait idle;
    private long nextKey = 1;
    /** The links open on this domain; loop thread only. */
    private final ArrayList<FrameLink> links = new ArrayList<>();
    /**
     * Where jfabric's RDM providers report a peer found gone (FI_JF_PEER_FAILED: shm's peer process exited or
     * closed its endpoint, ofi_rxm's connection reset) for every link's endpoint: a channel that only reads has no
     * send that could fail. Opened with the first RDM link; null before, and for the bridge's native providers,
     * which raise no such event.
     */
    private EventQueue peerEvents;
    /**
     * Events the peer-failure queue holds. One per peer lost, read at least once a millisecond: room for the peers of
     * every channel a loop is likely to hold, so that a mass failure (a whole client fleet gone at once) overruns it
     * only past that many. jfabric's event queues grow with their content, so the room costs nothing until used.
     */
    private static final long PEER_EVENTS = 1 << 16;
    private final EqEntry peerEvent = new EqEntry();
    private final EqErrEntry peerError = new EqErrEntry();

    private LoopDomain(String provider, FabricInfo info, Fabric fabric, Domain domain, IdleWait idle) {
        this.provider = provider;
        this.info = info;
        this.fabric = fabric;
        this.domain = domain;
        boolean mrLocal = (info.domainAttr.mrMode & MrMode.LOCAL) != 0;
        this.needsLocalDesc = mrLocal || Boolean.getBoolean(REGISTER_SENDS);
        this.registrations = new RegistrationCache(this, mrLocal);
        this.idle = idle;
    }

    /** Opens the fabric and domain {@code info} names for the loop that waits in {@code idle}. */
    static LoopDomain open(FabricInfo info, IdleWait idle) {
        Fabric fabric = Fabrics.openFabric(info);
        try {
            return new LoopDomain(info.providerName(), info, fabric, fabric.openDomain(info), idle);
        } catch (RuntimeException e) {
            fabric.close();
            throw e;
        }
    }

    /** The key of {@code info}'s domain among a loop's domains. */
    static String key(FabricInfo info) {
        return info.providerName() + "|" + info.fabricAttr.name + "|" + info.domainAttr.name;
    }

    /** The hints of a stream endpoint: RDM, send and receive, ordered sends, one thread per domain. */
    static FabricInfo hints(String provider) {
        FabricInfo hints = Hints.create()
                .caps(Caps.MSG | Caps.SEND | Caps.RECV)
                .epType(EndpointType.RDM)
                .provider(provider)
                .threading(Threading.DOMAIN)
                .mrMode(SUPPORTED_MR_MODE)
                .build();
        hints.txAttr.msgOrder = MsgOrder.SAS;
        hints.rxAttr.msgOrder = MsgOrder.SAS;
        return hints;
    }

    static List<FabricInfo> infos(String provider, String node, String service) {
        long flags = node != null || service != null ? Fabrics.SOURCE : 0;
        return Fabrics.getInfo(Fabrics.API_VERSION, node, service, flags, hints(provider));
    }

    /**
     * The info an endpoint of {@code provider} opens with: for a named bind, the provider's answer to that node and
     * service (FI_SOURCE), which carries the source address; for a client of a server on the loopback interface,
     * the loopback's, so a local stream stays on it; otherwise the provider's first.
     */
    static FabricInfo endpointInfo(String provider, JfabricAddress bindTo, byte[] peerName) {
        if (bindTo != null && (bindTo.node() != null || bindTo.service() != null)) {
            return infos(provider, bindTo.node(), bindTo.service()).getFirst();
        }
        String loopback = peerName == null ? null : loopbackNode(peerName);
        if (loopback != null) {
            try {
                return infos(provider, loopback, null).getFirst();
            } catch (FabricException e) {
                if (e.errno() != Errno.ENODATA) {
                    throw e;
                }
            }
        }
        return infos(provider, null, null).getFirst();
    }

    /** "127.0.0.1" or "::1" when {@code name} is a Linux sockaddr_in/sockaddr_in6 on the loopback, else null. */
    static String loopbackNode(byte[] name) {
        if (name.length >= 8 && name[0] == 2 && name[1] == 0 && name[4] == 127) {
            return "127.0.0.1";
        }
        if (name.length >= 24 && name[0] == 10 && name[1] == 0) {
            for (int i = 8; i < 23; i++) {
                if (name[i] != 0) {
                    return null;
                }
            }
            return name[23] == 1 ? "::1" : null;
        }
        return null;
    }

    /**
     * A channel's CQ, in the loop's wait set so that the idle loop sleeps until it has completions. Elsewhere a
     * plain CQ, and the loop parks instead: where the provider refuses FI_WAIT_SET (ENOSYS), and for the
     * providers {@link #PARKS} names.
     */
    CompletionQueue openCq(CqFormat format, long size) {
        return inSet(set -> {
            CqAttr attr = CqAttr.of(format, size);
            attr.waitObj = WaitObj.SET;
            attr.waitSet = set;
            return domain.openCq(attr);
        }, () -> domain.openCq(CqAttr.of(format, size)));
    }

    /**
     * A connection's or listener's event queue, in the loop's wait set like {@link #openCq}: a CONNREQ or
     * CONNECTED event must end the idle loop's wait as a completion does.
     */
    EventQueue openEq() {
        return openEq(0);
    }

    /** {@link #openEq()} holding {@code size} events (0: the provider's default). */
    private EventQueue openEq(long size) {
        return inSet(set -> {
            EqAttr attr = eqAttr(size);
            attr.waitObj = WaitObj.SET;
            attr.waitSet = set;
            return fabric.openEq(attr);
        }, () -> fabric.openEq(eqAttr(size)));
    }

    private static EqAttr eqAttr(long size) {
        EqAttr attr = EqAttr.defaults();
        attr.size = size;
        return attr;
    }

    /** A queue {@code joined} opens in the loop's set; {@code plain} once the loop parks (or the provider says ENOSYS). */
    private <Q> Q inSet(Function<WaitSet, Q> joined, Supplier<Q> plain) {
        if (PARKS.contains(provider)) {
            idle.parkFromNowOn();
        }
        WaitSet set = idle.set(fabric);
        if (set != null) {
            try {
                return joined.apply(set);
            } catch (FabricException e) {
                if (e.errno() != Errno.ENOSYS) {
                    throw e;
                }
                idle.parkFromNowOn();
            }
        }
        return plain.get();
    }

    /**
     * Passes {@code rc} on; an EAGAIN (ofi_rxm connecting on demand, a full queue) is retried on the loop's next
     * turn, and no completion will end the loop's wait for it, so that wait must be short.
     */
    int noteRefusal(int rc) {
        if (rc == -Errno.EAGAIN) {
            idle.retrySoon();
        }
        return rc;
    }

    /** Registers {@code memory} on this domain for local {@code access}, counted in {@link #LIVE_REGISTRATIONS}. */
    MemoryRegion register(MemorySegment memory, long access) {
        MemoryRegion r = domain.registerMemory(memory, access, 0, nextKey++, 0);
        LIVE_REGISTRATIONS.incrementAndGet();
        return r;
    }

    void deregister(MemoryRegion r) {
        try {
            r.close();
        } finally {
            LIVE_REGISTRATIONS.decrementAndGet();
        }
    }

    /**
     * The queue an RDM link's endpoint binds for peer-failure events, opened on first use in the loop's wait set (an
     * event must end an idle loop's wait); null where the provider raises none.
     */
    EventQueue peerEvents() {
        if (peerEvents == null && !provider.startsWith(BRIDGE_PREFIX)) {
            peerEvents = openEq(PEER_EVENTS);
        }
        return peerEvents;
    }

    /**
     * Reads the peer-failure events queued, and marks each link whose endpoint one names ({@link
     * FrameLink#peerFailed}); its stream acts on it at its next poll. Returns how many events it read.
     */
    int pollPeerEvents() {
        EventQueue q = peerEvents;
        if (q == null) {
            return 0;
        }
        int n = 0;
        for (int rc; (rc = q.read(peerEvent, 0)) != -Errno.EAGAIN; n++) {
            if (rc == -Errno.EAVAIL) {
                // an error entry names no peer the links could act on; it is read so the queue goes on
                int taken = q.readError(peerError, 0);
                peerError.context = null;
                peerError.fid = null;
                if (taken <= 0) {
                    break;
                }
                continue;
            }
            if (rc < 0) {
                break; // the queue refuses reads (closed): nothing more to learn from it
            }
            if (rc == EqEvent.PEER_FAILED) {
                for (int i = 0; i < links.size(); i++) {
                    FrameLink l = links.get(i);
                    if (l.ep == peerEvent.fid) {
                        l.peerFailed(peerEvent.data);
                    }
                }
            }
            peerEvent.fid = null;
            peerEvent.cmData = null;
            peerEvent.info = null;
            peerEvent.context = null;
        }
        return n;
    }

    void linkOpened(FrameLink link) {
        links.add(link);
    }

    /** The last stream on this domain closed: the cached chunks go, so an idle loop holds no registration. */
    void linkClosed(FrameLink link) {
        links.remove(link);
        if (links.isEmpty()) {
            registrations.clear();
        }
    }

    /** Closes the links still open here (the last resort of {@link JfabricIoHandler#destroy}), then the domain. */
    @Override
    public void close() {
        for (FrameLink l : links.toArray(new FrameLink[0])) {
            l.close();
        }
        registrations.clear();
        if (peerEvents != null) {
            peerEvents.close();
            peerEvents = null;
        }
        try {
            domain.close();
        } finally {
            fabric.close();
        }
    }
}
