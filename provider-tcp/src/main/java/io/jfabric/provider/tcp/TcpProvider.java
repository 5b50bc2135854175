package io.jfabric.provider.tcp;

import io.jfabric.util.ConnectionOrder;
import io.jfabric.util.MrMap;
import io.jfabric.util.Sockaddr;
import io.jfabric.AddressFormat;
import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MsgOrder;
import io.jfabric.OpFlags;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.ResourceMgmt;
import io.jfabric.Threading;
import io.jfabric.spi.FabricProvider;
import io.jfabric.spi.InfoMatcher;
import io.jfabric.spi.NativeAccess;
import io.jfabric.spi.ProviderParameter;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The pure-Java tcp provider: FI_EP_MSG over java.nio, on the wire compatible with libfabric 1.17's
 * {@code tcp} provider (protocol version 3), so it talks to C programs such as {@code fi_pingpong -p tcp
 * -e msg}. One info per local interface address, as libfabric's tcp lists them (fabric "a.b.c.d/prefix",
 * domain the interface name), with FI_SOCKADDR_IN or FI_SOCKADDR_IN6 addresses.
 *
 * <p>Differences from libfabric's tcp: no shared receive contexts and therefore no FI_TAGGED (use
 * tcp;ofi_rxm), progress is manual unless the hints ask FI_PROGRESS_AUTO, messages are limited to
 * {@code FI_TCP_MAX_MSG_SIZE} (1 GiB by default) and registered regions to 2 GiB - 1.
 */
public final class TcpProvider implements FabricProvider {
    static final int VERSION = Fabrics.version(1, 0);

    static final long TX_CAPS = Caps.MSG | Caps.RMA | Caps.SEND | Caps.READ | Caps.WRITE;
    /** FI_RMA_EVENT as libfabric's tcp: an endpoint's FI_REMOTE_READ and FI_REMOTE_WRITE counters count RMA it is the target of. */
    static final long RX_CAPS = Caps.MSG | Caps.RMA | Caps.RECV | Caps.REMOTE_READ | Caps.REMOTE_WRITE | Caps.RMA_EVENT;
    static final long CAPS = TX_CAPS | RX_CAPS | Caps.LOCAL_COMM | Caps.REMOTE_COMM;
    /**
     * The completion levels tcp honours: a transmit completes once its bytes are in the socket (inject and
     * transmit complete), or, when it asks for FI_TRANSMIT_COMPLETE, FI_DELIVERY_COMPLETE or FI_COMMIT_COMPLETE,
     * on the peer's ACK of its placement, as libfabric's tcp does (see TcpMsg).
     */
    static final long TX_LEVELS = OpFlags.INJECT_COMPLETE | OpFlags.TRANSMIT_COMPLETE | OpFlags.DELIVERY_COMPLETE
            | OpFlags.COMMIT_COMPLETE;
    /** tx_attr.op_flags: libfabric tcp's set (xnet_attr.c). */
    static final long TX_OP_FLAGS = OpFlags.INJECT | OpFlags.COMPLETION | TX_LEVELS;
    /** rx_attr.op_flags: FI_COMPLETION (no multi-receive on a connected endpoint). */
    static final long RX_OP_FLAGS = OpFlags.COMPLETION;

    public TcpProvider() {
    }

    @Override
    public String name() {
        return TcpParams.PROV;
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public List<ProviderParameter> parameters() {
        return TcpParams.PARAMS.parameters();
    }

    /** The connections' system calls (SocketCalls, UserTimeout) are downcalls: a denied module may not make them. */
    @Override
    public String unavailableReason() {
        return NativeAccess.deniedReason(TcpProvider.class.getModule(), () -> MemorySegment.NULL.reinterpret(0));
    }

    @Override
    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        List<FabricInfo> templates;
        try {
            templates = templates();
        } catch (SocketException e) {
            return List.of();
        }
        if (hints == null) {
            return InfoMatcher.match(templates, null, version);
        }
        if (hints.providerName() != null && !matchesName(hints.providerName())) {
            return List.of();
        }
        if (hints.epAttr != null && hints.epAttr.type != EndpointType.UNSPEC && hints.epAttr.type != EndpointType.MSG) {
            return List.of();
        }
        InetSocketAddress src = null;
        InetSocketAddress dest = null;
        try {
            if ((flags & Fabrics.SOURCE) != 0) {
                if (node != null || service != null) {
                    src = resolve(node, service, hints.addrFormat);
                }
            } else if (node != null) {
                dest = resolve(node, service, hints.addrFormat);
            }
        } catch (UnknownHostException e) {
            return List.of();
        }
        if (src == null && hints.srcAddr != null) {
            src = Sockaddr.toInet(hints.srcAddr);
        }
        if (dest == null && hints.destAddr != null) {
            dest = Sockaddr.toInet(hints.destAddr);
        }
        if (src == null && dest != null) {
            // as libfabric: the source of a destination is the address the route to it leaves from, so only that
            // interface's info; with no route (or none of tcp's addresses), every interface's, the nearest first
            InetAddress routed = LocalAddress.routeTo(dest.getAddress());
            if (routed != null && offers(templates, routed)) {
                src = new InetSocketAddress(routed, 0);
            }
        }
        List<FabricInfo> out = new ArrayList<>();
        for (FabricInfo t : templates) {
            if (!fits(t, hints, src, dest, (flags & Fabrics.SOURCE) != 0 && node == null)) {
                continue;
            }
            List<FabricInfo> m = InfoMatcher.match(List.of(withRequestedTagged(withRequestedProgress(t, hints), hints)),
                    hints, version);
            if (m.isEmpty()) {
                continue;
            }
            FabricInfo i = m.get(0);
            if (src != null) {
                InetSocketAddress tsrc = Sockaddr.toInet(t.srcAddr);
                boolean wildcard = src.getAddress().isAnyLocalAddress();
                i.srcAddr = Sockaddr.of(new InetSocketAddress(wildcard ? tsrc.getAddress() : src.getAddress(),
                        src.getPort()));
            }
            if (dest != null) {
                i.destAddr = Sockaddr.of(dest);
            }
            out.add(i);
        }
        if (src != null && src.getAddress().isAnyLocalAddress() && !out.isEmpty() && !namesAsked(hints)) {
            // libfabric's info for a wildcard source keeps the wildcard, so its passive endpoint listens on every
            // interface; the per-interface infos follow it for tcp;ofi_rxm, which names an endpoint by its source
            FabricInfo any = out.getFirst().copy();
            any.srcAddr = Sockaddr.of(src);
            out.addFirst(any);
        }
        if (dest != null) {
            // the interface that reaches the destination first, as libfabric sorts by route
            final InetAddress d = dest.getAddress();
            out.sort((a, b) -> Boolean.compare(!sameNet(a, d), !sameNet(b, d)));
        }
        return out;
    }

    private static boolean namesAsked(FabricInfo hints) {
        return (hints.fabricAttr != null && hints.fabricAttr.name != null)
                || (hints.domainAttr != null && hints.domainAttr.name != null);
    }

    private static boolean offers(List<FabricInfo> templates, InetAddress a) {
        for (FabricInfo t : templates) {
            if (Sockaddr.toInet(t.srcAddr).getAddress().equals(a)) {
                return true;
            }
        }
        return false;
    }

    private static boolean matchesName(String prov) {
        for (String p : prov.split(",")) {
            if (p.trim().equals(TcpParams.PROV)) {
                return true;
            }
        }
        return false;
    }

    private static InetSocketAddress resolve(String node, String service, AddressFormat fmt) throws UnknownHostException {
        int port = 0;
        if (service != null && !service.isEmpty()) {
            try {
                port = Integer.parseInt(service);
            } catch (NumberFormatException e) {
                throw new FabricException(Errno.EINVAL, "tcp takes a numeric service (port), got '" + service + "'");
            }
        }
        InetAddress ip;
        if (node == null) {
            ip = fmt == AddressFormat.SOCKADDR_IN6 ? InetAddress.getByName("::") : InetAddress.getByName("0.0.0.0");
        } else {
            InetAddress[] all = InetAddress.getAllByName(node);
            ip = all[0];
            for (InetAddress a : all) {
                if (fmt == AddressFormat.SOCKADDR_IN6 ? a instanceof Inet6Address : a instanceof Inet4Address) {
                    ip = a;
                    break;
                }
            }
        }
        return new InetSocketAddress(ip, port);
    }

    private static boolean fits(FabricInfo t, FabricInfo hints, InetSocketAddress src, InetSocketAddress dest,
                                boolean anySource) {
        if (hints.addrFormat != AddressFormat.UNSPEC && hints.addrFormat != AddressFormat.SOCKADDR
                && hints.addrFormat != t.addrFormat) {
            return false;
        }
        if (hints.fabricAttr != null && hints.fabricAttr.name != null && !hints.fabricAttr.name.equals(t.fabricAttr.name)) {
            return false;
        }
        if (hints.domainAttr != null && hints.domainAttr.name != null && !hints.domainAttr.name.equals(t.domainAttr.name)) {
            return false;
        }
        InetAddress tip = Sockaddr.toInet(t.srcAddr).getAddress();
        if (src != null) {
            if (src.getAddress().getClass() != tip.getClass()) {
                return false;
            }
            if (!src.getAddress().isAnyLocalAddress() && !src.getAddress().equals(tip)) {
                return false;
            }
        }
        if (dest != null && dest.getAddress().getClass() != tip.getClass()) {
            return false;
        }
        return true;
    }

    private static boolean sameNet(FabricInfo i, InetAddress d) {
        InetAddress a = Sockaddr.toInet(i.srcAddr).getAddress();
        if (d.isLoopbackAddress()) {
            return a.isLoopbackAddress();
        }
        String name = i.fabricAttr.name;
        int slash = name.indexOf('/');
        if (slash < 0) {
            return false;
        }
        int prefix = Integer.parseInt(name.substring(slash + 1));
        byte[] x = a.getAddress();
        byte[] y = d.getAddress();
        if (x.length != y.length) {
            return false;
        }
        for (int bit = 0; bit < prefix; bit++) {
            int m = 0x80 >>> (bit & 7);
            if ((x[bit >> 3] & m) != (y[bit >> 3] & m)) {
                return false;
            }
        }
        return true;
    }

    /**
     * tcp runs either progress model; templates say FI_PROGRESS_MANUAL (jfabric's default) and are raised
     * to FI_PROGRESS_AUTO for hints that ask for it, so the generic matcher accepts them.
     */
    private static FabricInfo withRequestedProgress(FabricInfo t, FabricInfo hints) {
        if (hints.domainAttr == null || (hints.domainAttr.dataProgress != Progress.AUTO
                && hints.domainAttr.controlProgress != Progress.AUTO)) {
            return t;
        }
        FabricInfo c = t.copy();
        c.domainAttr.dataProgress = Progress.AUTO;
        c.domainAttr.controlProgress = Progress.AUTO;
        return c;
    }

    /** FI_TAG_GENERIC, the mem_tag_format libfabric 1.17 tcp reports with FI_TAGGED. */
    static final long TAG_GENERIC = 0xAAAAAAAAAAAAAAAAL;

    /**
     * FI_TAGGED is offered only to hints that ask for it (rxm does, for libfabric's dyn_rbuf path), as
     * libfabric 1.17 tcp offers it only on its second, shared-receive-context info: plain hints get the
     * untagged info they always got. jfabric carries tagged messages on the endpoint's own receive context.
     */
    private static FabricInfo withRequestedTagged(FabricInfo t, FabricInfo hints) {
        if ((hints.caps & Caps.TAGGED) == 0) {
            return t;
        }
        FabricInfo c = t.copy();
        c.caps |= Caps.TAGGED;
        c.txAttr.caps |= Caps.TAGGED;
        c.rxAttr.caps |= Caps.TAGGED;
        c.epAttr.memTagFormat = TAG_GENERIC;
        return c;
    }

    /** One template per address of {@link LocalAddress#list}, in its order. */
    static List<FabricInfo> templates() throws SocketException {
        List<FabricInfo> out = new ArrayList<>();
        for (LocalAddress a : LocalAddress.list()) {
            out.add(template(a));
        }
        return out;
    }

    private static FabricInfo template(LocalAddress local) {
        FabricInfo i = new FabricInfo();
        InetAddress a = local.address();
        // libfabric offers its loopback entries for local communication only: hints asking FI_REMOTE_COMM skip them
        long comm = local.loopback() ? Caps.LOCAL_COMM : Caps.LOCAL_COMM | Caps.REMOTE_COMM;
        i.caps = CAPS & ~(Caps.LOCAL_COMM | Caps.REMOTE_COMM) | comm;
        i.mode = 0;
        i.addrFormat = Sockaddr.formatOf(a);
        i.srcAddr = Sockaddr.of(new InetSocketAddress(a, 0));
        i.txAttr.caps = TX_CAPS;
        i.txAttr.opFlags = TX_OP_FLAGS;
        i.txAttr.msgOrder = ConnectionOrder.MSG_ORDER;
        i.txAttr.compOrder = MsgOrder.NONE;
        i.txAttr.injectSize = TcpParams.INJECT_SIZE;
        i.txAttr.size = TcpParams.TX_SIZE.get();
        i.txAttr.iovLimit = TcpParams.IOV_LIMIT;
        i.txAttr.rmaIovLimit = TcpParams.IOV_LIMIT;
        i.rxAttr.caps = RX_CAPS;
        i.rxAttr.opFlags = RX_OP_FLAGS;
        i.rxAttr.msgOrder = ConnectionOrder.MSG_ORDER;
        i.rxAttr.compOrder = MsgOrder.NONE;
        i.rxAttr.size = TcpParams.RX_SIZE.get();
        i.rxAttr.iovLimit = TcpParams.IOV_LIMIT;
        i.epAttr.type = EndpointType.MSG;
        i.epAttr.protocol = Protocol.SOCK_TCP;
        i.epAttr.protocolVersion = 0;
        i.epAttr.maxMsgSize = TcpParams.MAX_MSG_SIZE.get();
        i.epAttr.maxOrderRawSize = i.epAttr.maxMsgSize;
        i.epAttr.maxOrderWawSize = i.epAttr.maxMsgSize;
        i.epAttr.txCtxCnt = 1;
        i.epAttr.rxCtxCnt = 1;
        i.domainAttr.name = local.ifName();
        i.domainAttr.threading = Threading.SAFE;
        i.domainAttr.controlProgress = Progress.MANUAL;
        i.domainAttr.dataProgress = Progress.MANUAL;
        i.domainAttr.resourceMgmt = ResourceMgmt.ENABLED;
        i.domainAttr.mrMode = 0;
        i.domainAttr.mrKeySize = 8;
        i.domainAttr.cqDataSize = 8;
        i.domainAttr.cqCnt = 256;
        i.domainAttr.epCnt = 8192;
        i.domainAttr.txCtxCnt = 8192;
        i.domainAttr.rxCtxCnt = 8192;
        i.domainAttr.maxEpTxCtx = 1;
        i.domainAttr.maxEpRxCtx = 1;
        i.domainAttr.mrIovLimit = MrMap.IOV_LIMIT;
        // registered data moves through NIO buffers, which heap memory backs as well
        i.domainAttr.mrHeapSegments = true;
        i.domainAttr.caps = comm;
        i.fabricAttr.name = local.fabricName();
        i.fabricAttr.provName = TcpParams.PROV;
        i.fabricAttr.provVersion = VERSION;
        i.fabricAttr.apiVersion = Fabrics.API_VERSION;
        return i;
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        if (info == null || !TcpParams.PROV.equals(info.providerName())) {
            throw new FabricException(Errno.EINVAL, "not a tcp info: " + info);
        }
        return new TcpFabric(info);
    }

    @Override
    public String toString() {
        return "TcpProvider";
    }
}
