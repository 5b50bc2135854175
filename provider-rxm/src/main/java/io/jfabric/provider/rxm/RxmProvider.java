package io.jfabric.provider.rxm;

import io.jfabric.AddressFormat;
import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MrMode;
import io.jfabric.MsgOrder;
import io.jfabric.OpFlags;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.Threading;
import io.jfabric.spi.ProviderParameter;
import io.jfabric.spi.UtilityProvider;
import io.jfabric.provider.rxm.wire.RxmPacket;
import io.jfabric.util.ConnectionOrder;
import io.jfabric.util.Sockaddr;

import java.util.List;

/**
 * The {@code ofi_rxm} utility provider: libfabric's RxM (prov/rxm, v1.17), which turns any core provider
 * offering FI_EP_MSG with FI_MSG and FI_RMA into FI_EP_RDM with tagged messaging, RMA, directed receive,
 * FI_SOURCE (with FI_SOURCE_ERR when asked for) and multi-receive. Layered infos are named {@code <core>;ofi_rxm}.
 *
 * <p>Differences from libfabric: atomics only over tcp and without the long double types; no counters of remote
 * operations; receive buffers are posted
 * per connection (no shared receive context); data progress is manual, driven by CQ reads.
 */
public final class RxmProvider implements UtilityProvider {
    public static final String NAME = "ofi_rxm";
    /** Caps of a layered info. */
    static final long CAPS = Caps.MSG | Caps.TAGGED | Caps.RMA | Caps.SEND | Caps.RECV | Caps.READ | Caps.WRITE
            | Caps.REMOTE_READ | Caps.REMOTE_WRITE | Caps.DIRECTED_RECV | Caps.SOURCE | Caps.MULTI_RECV
            | Caps.LOCAL_COMM | Caps.REMOTE_COMM;
    /**
     * The completion levels rxm honours. An eager or SAR send completes on the core's transmit completion
     * (inject and transmit complete); a send that asks for FI_DELIVERY_COMPLETE goes by rendezvous, which
     * completes once the receiver has read the data into the matched receive (RxmTransmit).
     */
    static final long TX_LEVELS = OpFlags.INJECT_COMPLETE | OpFlags.TRANSMIT_COMPLETE | OpFlags.DELIVERY_COMPLETE;
    /** tx_attr.op_flags: libfabric rxm's set (RXM_TX_OP_FLAGS plus the passed-through FI_TRANSMIT_COMPLETE). */
    static final long TX_OP_FLAGS = OpFlags.INJECT | OpFlags.COMPLETION | TX_LEVELS;
    /** rx_attr.op_flags: libfabric rxm's set. */
    static final long RX_OP_FLAGS = OpFlags.MULTI_RECV | OpFlags.COMPLETION;
    /** 0xaaaa...: 64 unstructured tag bits, as libfabric's rxm reports. */
    static final long MEM_TAG_FORMAT = 0xAAAA_AAAA_AAAA_AAAAL;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int version() {
        return Fabrics.version(1, 17);
    }

    @Override
    public List<ProviderParameter> parameters() {
        return RxmParams.ALL;
    }

    /**
     * The cores whose domains answer {@code UtilDomain.region(key)}, so that the target's rxm can check and apply
     * a peer's atomic to the registered memory (RxmAtomic); a native core behind the bridge does not.
     */
    private static final java.util.Set<String> ATOMIC_CORES = java.util.Set.of("tcp", "verbs");

    /** rxm_info_to_core: a connected endpoint with messages and RMA (rendezvous reads the sender's buffer). */
    @Override
    public FabricInfo coreHints(FabricInfo userHints) {
        FabricInfo h = FabricInfo.hints();
        // hints without caps ask the core for none, as libfabric's rxm does, so the core answers with all of its
        // own, among them its reach (FI_LOCAL_COMM alone on loopback), which layer() passes on
        if (userHints != null && userHints.caps != 0) {
            h.caps = Caps.MSG | Caps.RMA | Caps.SEND | Caps.RECV | Caps.READ | Caps.WRITE | Caps.REMOTE_READ
                    | Caps.REMOTE_WRITE;
        }
        h.epAttr.type = EndpointType.MSG;
        // rxm registers its own bounce buffers when the core needs FI_MR_LOCAL and passes the application's
        // registrations through for RMA, so it takes every mode a core may ask for (rxm_info_to_core)
        h.domainAttr.mrMode = MrMode.LOCAL | MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY
                | (userHints == null || userHints.domainAttr == null ? 0 : userHints.domainAttr.mrMode & ~(MrMode.BASIC | MrMode.SCALABLE));
        // discovery adds the user's addresses, fabric/domain names and the core-name selection
        return h;
    }

    @Override
    public FabricInfo layer(FabricInfo coreInfo, FabricInfo userHints) {
        if (coreInfo.epAttr == null || coreInfo.epAttr.type != EndpointType.MSG
                || (coreInfo.caps & (Caps.MSG | Caps.RMA)) != (Caps.MSG | Caps.RMA) || wildcardSource(coreInfo)) {
            return null;
        }
        // discovery checks the result against the user's hints and alters it (ofi_check_info/ofi_alter_info)
        FabricInfo t = template(coreInfo);
        if (userHints != null && ((userHints.caps | (userHints.rxAttr == null ? 0 : userHints.rxAttr.caps))
                & Caps.SOURCE_ERR) != 0) {
            // offered only when asked for: as a secondary cap it would otherwise turn on for every endpoint and
            // make unknown senders' messages errors for applications that never asked
            t.caps |= Caps.SOURCE_ERR;
            t.rxAttr.caps |= Caps.SOURCE_ERR;
        }
        if (userHints != null && ((userHints.caps | (userHints.txAttr == null ? 0 : userHints.txAttr.caps)
                | (userHints.rxAttr == null ? 0 : userHints.rxAttr.caps)) & Caps.ATOMIC) != 0
                && ATOMIC_CORES.contains(coreInfo.providerName())) {
            offerAtomics(t);
        }
        return t;
    }

    /**
     * A wildcard source (tcp's first info for FI_SOURCE 0.0.0.0) is no name a peer can dial, and rxm names its
     * endpoints by their source and matches peers by name: it layers over the per-interface infos that follow.
     */
    private static boolean wildcardSource(FabricInfo core) {
        if (core.srcAddr == null
                || (core.addrFormat != AddressFormat.SOCKADDR_IN && core.addrFormat != AddressFormat.SOCKADDR_IN6)) {
            return false;
        }
        return Sockaddr.toInet(core.srcAddr).getAddress().isAnyLocalAddress();
    }

    /**
     * FI_ATOMIC, as libfabric 1.17's rxm_getinfo adds it: only when the hints ask (it is left out otherwise, as
     * libfabric leaves it out for the fast path's sake), and then without the orders between atomics and other
     * operations, since an atomic is applied by the target's rxm while RMA lands through the core. Atomics
     * between themselves stay ordered: one connection, applied in arrival order. Only over the {@link
     * #ATOMIC_CORES}.
     */
    private static void offerAtomics(FabricInfo t) {
        long unordered = MsgOrder.RAW | MsgOrder.RAR | MsgOrder.WAW | MsgOrder.WAR | MsgOrder.SAR | MsgOrder.SAW;
        long atomicOrder = MsgOrder.ATOMIC_RAR | MsgOrder.ATOMIC_RAW | MsgOrder.ATOMIC_WAW;
        t.caps |= Caps.ATOMIC;
        t.txAttr.caps |= Caps.ATOMIC;
        t.rxAttr.caps |= Caps.ATOMIC;
        t.txAttr.msgOrder = (t.txAttr.msgOrder & ~unordered) | atomicOrder;
        t.rxAttr.msgOrder = (t.rxAttr.msgOrder & ~unordered) | atomicOrder;
        t.epAttr.maxOrderRawSize = 0;
        t.epAttr.maxOrderWarSize = 0;
        t.epAttr.maxOrderWawSize = 0;
    }

    /** rxm_info_to_rxm: the RDM info over one core info. */
    static FabricInfo template(FabricInfo core) {
        FabricInfo t = new FabricInfo();
        long comm = Caps.LOCAL_COMM | Caps.REMOTE_COMM;
        // rxm_info_to_rxm's ofi_pick_core_flags: the core's reach is rxm's, where the core reports one
        t.caps = (core.caps & comm) == 0 ? CAPS : CAPS & ~comm | core.caps & comm;
        t.mode = 0;
        t.addrFormat = core.addrFormat == null ? AddressFormat.UNSPEC : core.addrFormat;
        t.srcAddr = core.srcAddr == null ? null : core.srcAddr.clone();
        t.destAddr = core.destAddr == null ? null : core.destAddr.clone();
        t.nicName = core.nicName;
        // the reach is the info's and the domain's, not a direction's (libfabric's rxm_tx_attr/rxm_rx_attr)
        t.txAttr.caps = CAPS & ~(Caps.RECV | Caps.REMOTE_READ | Caps.REMOTE_WRITE | Caps.DIRECTED_RECV
                | Caps.MULTI_RECV | Caps.SOURCE | comm);
        // rxm_info_to_rxm: a peer's operations share one core connection, so rxm orders what its core orders
        t.txAttr.msgOrder = core.txAttr == null ? ConnectionOrder.MSG_ORDER : core.txAttr.msgOrder;
        t.txAttr.compOrder = MsgOrder.NONE;
        t.txAttr.opFlags = TX_OP_FLAGS;
        long coreInject = core.txAttr == null ? 128 : core.txAttr.injectSize;
        // a core inject that cannot carry rxm's header (verbs' 64-byte inline data) still serves RMA injects
        // as is, and message injects go through a bounce buffer (libfabric's rxm_ep_emulate_inject)
        t.txAttr.injectSize = coreInject > RxmPacket.SIZE ? coreInject - RxmPacket.SIZE : Math.max(0, coreInject);
        t.txAttr.size = RxmParams.defaults().txSize();
        t.txAttr.iovLimit = 4;
        // RMA goes to the core as posted, so rxm offers no more ranges than its core takes (verbs: 1), as libfabric's
        t.txAttr.rmaIovLimit = core.txAttr == null ? 4 : Math.min(4, core.txAttr.rmaIovLimit);
        t.rxAttr.caps = CAPS & ~(Caps.SEND | Caps.READ | Caps.WRITE | comm);
        t.rxAttr.msgOrder = core.rxAttr == null ? t.txAttr.msgOrder : core.rxAttr.msgOrder;
        t.rxAttr.compOrder = MsgOrder.NONE;
        t.rxAttr.opFlags = RX_OP_FLAGS;
        t.rxAttr.size = RxmParams.defaults().rxSize();
        t.rxAttr.iovLimit = 4;
        t.epAttr.type = EndpointType.RDM;
        t.epAttr.protocol = Protocol.RXM;
        t.epAttr.protocolVersion = 1;
        t.epAttr.maxMsgSize = Long.MAX_VALUE;
        t.epAttr.memTagFormat = MEM_TAG_FORMAT;
        t.epAttr.txCtxCnt = 1;
        t.epAttr.rxCtxCnt = 1;
        t.domainAttr = core.domainAttr.copy();
        t.domainAttr.threading = Threading.SAFE;
        t.domainAttr.controlProgress = Progress.MANUAL;
        t.domainAttr.dataProgress = Progress.MANUAL;
        t.domainAttr.maxEpStxCtx = 0;
        t.domainAttr.maxEpSrxCtx = 1; // fi_srx_context: RxmSharedRx
        t.domainAttr.cntrCnt = 0;
        t.fabricAttr = core.fabricAttr.copy();
        t.fabricAttr.provName = core.fabricAttr.provName + ";" + NAME;
        t.fabricAttr.provVersion = Fabrics.version(1, 17);
        t.providerData = core;
        return t;
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        if (!(info.providerData instanceof FabricInfo core)) {
            throw new FabricException(Errno.EINVAL, "this info was not made by ofi_rxm (" + info.providerName()
                    + "); pass an info returned by Fabrics.getInfo for a '<core>;ofi_rxm' provider");
        }
        return new RxmFabric(this, info, core, RxmParams.fromEnvironment());
    }
}
