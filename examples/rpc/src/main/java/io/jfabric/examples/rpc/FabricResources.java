package io.jfabric.examples.rpc;

import io.jfabric.AddressFormat;
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
import io.jfabric.EqAttr;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The jfabric objects under one engine: fabric, domain, one CQ (transmit and receive), an AV and one
 * enabled RDM endpoint, opened from a provider name. It also answers the two questions the domain's
 * mr_mode raises: which key a peer must use, and which address it must name in RMA.
 *
 * <p>This is the part every jfabric application writes first; Mercury's NA layer does the same with
 * fi_getinfo/fi_fabric/fi_domain/fi_endpoint.
 */
final class FabricResources implements AutoCloseable {
    /** The mr_mode bits this layer can honour: local descriptors, virtual addresses, provider keys. */
    static final int SUPPORTED_MR_MODE = MrMode.LOCAL | MrMode.VIRT_ADDR | MrMode.PROV_KEY | MrMode.ALLOCATED;

    final FabricInfo info;
    final Fabric fabric;
    final Domain domain;
    final CompletionQueue cq;
    final AddressVector av;
    final Endpoint ep;
    /** The endpoint's EQ, on which jfabric's providers say a peer is gone (FI_JF_PEER_FAILED); null if refused. */
    final EventQueue eq;
    private long nextKey = 1;

    private FabricResources(FabricInfo info) {
        this.info = info;
        Fabric f = null;
        Domain d = null;
        CompletionQueue c = null;
        AddressVector a = null;
        Endpoint e = null;
        EventQueue q = null;
        try {
            f = Fabrics.openFabric(info);
            q = f.openEq(EqAttr.defaults());
            d = f.openDomain(info);
            c = d.openCq(CqAttr.of(CqFormat.TAGGED, 1024));
            AvType type = info.domainAttr.avType == AvType.UNSPEC ? AvType.MAP : info.domainAttr.avType;
            a = d.openAv(AvAttr.of(type));
            e = d.openEndpoint(info);
            e.bind(a);
            e.bind(c, BindFlags.TRANSMIT | BindFlags.RECV);
            q = bindPeerFailureEq(e, q);
            e.enable();
        } catch (RuntimeException ex) {
            closeQuietly(e, a, c, d, q, f);
            throw ex;
        }
        eq = q;
        fabric = f;
        domain = d;
        cq = c;
        av = a;
        ep = e;
    }

    /** Binds {@code q} to the endpoint; a provider that takes no EQ on RDM (libfabric's) gets none, and it is closed. */
    private static EventQueue bindPeerFailureEq(Endpoint e, EventQueue q) {
        try {
            e.bind(q);
            return q;
        } catch (FabricException ex) {
            closeQuietly(q);
            return null; // then only the engine's pings tell that a peer died
        }
    }

    /**
     * Opens an RDM endpoint of {@code provider} ("libfabric:tcp;ofi_rxm", "shm", ...) with tagged messages
     * and RMA. Socket-addressed providers are asked for 127.0.0.1 first so traffic stays on loopback.
     */
    static FabricResources open(String provider) {
        FabricInfo hints = Hints.create()
                .caps(Caps.MSG | Caps.TAGGED | Caps.RMA | Caps.READ | Caps.WRITE | Caps.REMOTE_READ
                        | Caps.REMOTE_WRITE | Caps.SEND | Caps.RECV)
                .epType(EndpointType.RDM)
                .provider(provider)
                .mrMode(SUPPORTED_MR_MODE)
                .build();
        List<FabricInfo> infos = Fabrics.getInfo(hints);
        AddressFormat format = infos.getFirst().addrFormat;
        if (format == AddressFormat.SOCKADDR_IN || format == AddressFormat.SOCKADDR_IN6
                || format == AddressFormat.SOCKADDR) {
            // keep traffic on loopback: ask for the 127.0.0.1 interface (a name-addressed provider such as
            // shm would instead take the node as its region name, so only socket-addressed ones get it)
            try {
                infos = Fabrics.getInfo(Fabrics.API_VERSION, "127.0.0.1", null, Fabrics.SOURCE, hints);
            } catch (FabricException e) {
                if (e.errno() != Errno.ENODATA) {
                    throw e;
                }
            }
        }
        return new FabricResources(infos.getFirst());
    }

    String providerName() {
        return info.providerName();
    }

    int mrMode() {
        return info.domainAttr.mrMode;
    }

    /** Largest single transfer; RMA longer than this is split. */
    long maxMessageSize() {
        long m = info.epAttr.maxMsgSize;
        return m <= 0 || m > (1L << 30) ? 1L << 30 : m;
    }

    /** Registers {@code seg}; asks for a fresh key, which the provider replaces under FI_MR_PROV_KEY. */
    synchronized MemoryRegion register(MemorySegment seg, long access) {
        return domain.registerMemory(seg, access, 0, nextKey++, 0);
    }

    /** The descriptor to pass with a local buffer: the region under FI_MR_LOCAL, null otherwise. */
    MemoryRegion localDesc(MemoryRegion mr) {
        return (mrMode() & MrMode.LOCAL) != 0 ? mr : null;
    }

    /** The address a peer names for byte 0 of {@code mr}: its virtual address under FI_MR_VIRT_ADDR, else 0. */
    long remoteBase(MemoryRegion mr) {
        return (mrMode() & MrMode.VIRT_ADDR) != 0 ? mr.segment().address() : 0;
    }

    @Override
    public void close() {
        closeQuietly(ep, av, cq, domain, eq, fabric);
    }

    /** Closes the endpoint first (nothing posted refers to {@code regions} after that), then them, then the rest. */
    void closeWith(MemoryRegion... regions) {
        closeQuietly(ep);
        closeQuietly(regions);
        closeQuietly(av, cq, domain, eq, fabric);
    }

    private static void closeQuietly(AutoCloseable... objects) {
        for (AutoCloseable o : objects) {
            if (o != null) {
                try {
                    o.close();
                } catch (Exception ignored) {
                    // closing in teardown: the first failure must not hide the rest
                }
            }
        }
    }
}
