package io.jfabric.provider.verbs;

import io.jfabric.AddressFormat;
import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Mode;
import io.jfabric.MrMode;
import io.jfabric.OpFlags;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.ResourceMgmt;
import io.jfabric.Threading;
import io.jfabric.util.ConnectionOrder;
import io.jfabric.util.Sockaddr;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The infos verbs offers: one FI_EP_MSG info per device and IP address, as libfabric's verbs (fabric
 * named by the subnet, domain by the device). Sizes follow fi_verbs(7)'s defaults, capped by the device.
 */
final class VerbsInfos {
    /**
     * The completion levels verbs honours: a send or write completes when the RC queue pair's work completion
     * arrives, i.e. once the peer's adapter has acknowledged it (transmit complete, as libfabric's verbs says).
     * Delivery into the peer's receive buffer is not known on this side, so FI_DELIVERY_COMPLETE is refused.
     */
    static final long TX_LEVELS = OpFlags.INJECT_COMPLETE | OpFlags.TRANSMIT_COMPLETE;
    /** tx_attr.op_flags: libfabric verbs' set (VERBS_TX_OP_FLAGS). */
    static final long TX_OP_FLAGS = OpFlags.INJECT | OpFlags.COMPLETION | TX_LEVELS;

    static final int PROVIDER_VERSION = Fabrics.version(1, 0);
    /** rdma_cm carries 56 bytes of private data; the first holds the length, as libfabric's verbs. */
    static final int CM_DATA_SIZE = 55;
    static final long CAPS = Caps.MSG | Caps.RMA | Caps.SEND | Caps.RECV | Caps.READ | Caps.WRITE
            | Caps.REMOTE_READ | Caps.REMOTE_WRITE | Caps.LOCAL_COMM | Caps.REMOTE_COMM;
    static final int MR_MODE = MrMode.LOCAL | MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY;
    static final int DEFAULT_QUEUE_SIZE = 384;
    static final int DEFAULT_INJECT_SIZE = 64;
    static final int DEFAULT_IOV_LIMIT = 4;

    private VerbsInfos() {
    }

    /** fi_getinfo for verbs over {@code devices}: select by node/service/flags and names, then ofi_check_info. */
    static List<FabricInfo> getInfo(List<VerbsDevice> devices, int version, String node, String service, long flags,
                                    FabricInfo hints) {
        if (hints != null && hints.epAttr != null && hints.epAttr.type != EndpointType.UNSPEC
                && hints.epAttr.type != EndpointType.MSG) {
            return List.of();
        }
        List<FabricInfo> all = all(devices);
        if (node == null && service == null && hints == null) {
            return all;
        }
        List<FabricInfo> selected = select(all, node, service, flags, hints);
        if (hints != null && ((hints.mode | (hints.rxAttr == null ? 0 : hints.rxAttr.mode)) & Mode.RX_CQ_DATA) == 0) {
            // FI_RX_CQ_DATA only concerns applications that use remote CQ data (fabtests ask for it only
            // for writedata): offer the info without it, as libfabric's verbs matching does
            for (FabricInfo i : selected) {
                i.rxAttr.mode &= ~Mode.RX_CQ_DATA;
            }
        }
        return io.jfabric.spi.InfoMatcher.match(selected, hints, version);
    }

    static List<FabricInfo> all(List<VerbsDevice> devices) {
        List<FabricInfo> out = new ArrayList<>();
        for (VerbsDevice d : devices) {
            for (VerbsDevice.Address a : d.addresses()) {
                out.add(info(d, a));
            }
        }
        return out;
    }

    static FabricInfo info(VerbsDevice d, VerbsDevice.Address a) {
        FabricInfo i = new FabricInfo();
        // RC hardware atomics, where the adapter has them (VerbsAtomic): libfabric's verbs offers FI_ATOMIC likewise
        long atomic = d.hasAtomics() ? Caps.ATOMIC : 0;
        i.caps = CAPS | atomic;
        i.mode = 0;
        i.srcAddr = Sockaddr.of(a.ip(), 0);
        i.addrFormat = Sockaddr.family(i.srcAddr) == Sockaddr.AF_INET ? AddressFormat.SOCKADDR_IN
                : AddressFormat.SOCKADDR_IN6;
        i.nicName = d.name();
        i.providerData = d;
        long order = ConnectionOrder.MSG_ORDER;
        int txQueue = Math.min(VerbsParams.TX_SIZE.get(), d.maxQpWr());
        int rxQueue = Math.min(VerbsParams.RX_SIZE.get(), d.maxQpWr());
        int txIov = Math.min(VerbsParams.TX_IOV_LIMIT.get(), d.maxSge());
        int rxIov = Math.min(VerbsParams.RX_IOV_LIMIT.get(), d.maxSge());
        i.txAttr.caps = Caps.MSG | Caps.RMA | Caps.SEND | Caps.READ | Caps.WRITE | atomic;
        i.txAttr.opFlags = TX_OP_FLAGS;
        i.txAttr.msgOrder = order;
        i.txAttr.injectSize = VerbsParams.INLINE_SIZE.get();
        i.txAttr.size = txQueue;
        i.txAttr.iovLimit = txIov;
        i.txAttr.rmaIovLimit = 1;
        i.rxAttr.caps = Caps.MSG | Caps.RECV | Caps.REMOTE_READ | Caps.REMOTE_WRITE | atomic;
        // remote CQ data (writedata) is delivered into a posted receive, as FI_RX_CQ_DATA says
        i.rxAttr.mode = Mode.RX_CQ_DATA;
        i.rxAttr.opFlags = OpFlags.COMPLETION;
        i.rxAttr.msgOrder = order;
        i.rxAttr.size = rxQueue;
        i.rxAttr.iovLimit = rxIov;
        i.epAttr.type = EndpointType.MSG;
        i.epAttr.protocol = Protocol.RDMA_CM_IB_RC;
        i.epAttr.protocolVersion = 1;
        i.epAttr.maxMsgSize = d.maxMsgSize();
        i.epAttr.txCtxCnt = 1;
        i.epAttr.rxCtxCnt = 1;
        i.domainAttr.name = d.name();
        i.domainAttr.threading = Threading.SAFE; // as libfabric's verbs; hints asking FI_THREAD_DOMAIN get no data lock
        i.domainAttr.controlProgress = Progress.MANUAL;
        i.domainAttr.dataProgress = Progress.AUTO;
        i.domainAttr.resourceMgmt = ResourceMgmt.DISABLED;
        i.domainAttr.mrMode = MR_MODE;
        i.domainAttr.mrKeySize = 4;
        i.domainAttr.cqDataSize = 4;
        i.domainAttr.cqCnt = d.maxCq();
        i.domainAttr.epCnt = d.maxQp();
        i.domainAttr.txCtxCnt = d.maxQp();
        i.domainAttr.rxCtxCnt = d.maxQp();
        i.domainAttr.maxEpTxCtx = 1;
        i.domainAttr.maxEpRxCtx = 1;
        i.domainAttr.maxEpSrxCtx = d.maxSrq() > 0 ? d.maxQp() : 0; // fi_srx_context: VerbsSharedRx, one ibv_srq
        i.domainAttr.mrIovLimit = 1;
        i.domainAttr.mrCnt = d.maxMr();
        i.domainAttr.caps = Caps.LOCAL_COMM | Caps.REMOTE_COMM;
        i.fabricAttr.name = a.subnet();
        i.fabricAttr.provName = "verbs";
        i.fabricAttr.provVersion = PROVIDER_VERSION;
        i.fabricAttr.apiVersion = Fabrics.API_VERSION;
        return i;
    }

    /**
     * Applies fi_getinfo's node/service/flags and the hints' names and addresses: keeps the infos that can
     * serve them and fills in srcAddr/destAddr.
     */
    static List<FabricInfo> select(List<FabricInfo> infos, String node, String service, long flags, FabricInfo hints) {
        int port = 0;
        if (service != null && !service.isEmpty()) {
            try {
                port = Integer.parseInt(service);
            } catch (NumberFormatException e) {
                return List.of(); // verbs takes numeric services only
            }
        }
        InetAddress nodeAddr = null;
        if (node != null && !node.isEmpty()) {
            try {
                nodeAddr = InetAddress.getByName(node);
            } catch (UnknownHostException e) {
                return List.of();
            }
        }
        boolean source = (flags & Fabrics.SOURCE) != 0;
        List<FabricInfo> out = new ArrayList<>();
        for (FabricInfo i : infos) {
            if (hints != null && !namesMatch(i, hints)) {
                continue;
            }
            FabricInfo c = i.copy();
            InetAddress mine = Sockaddr.toInet(c.srcAddr).getAddress();
            byte[] hintSrc = hints == null ? null : hints.srcAddr;
            byte[] hintDst = hints == null ? null : hints.destAddr;
            if (hintSrc != null) {
                if (!Sockaddr.toInet(hintSrc).getAddress().equals(mine)) {
                    continue;
                }
                c.srcAddr = hintSrc.clone();
            }
            if (nodeAddr != null && source) {
                if (!nodeAddr.equals(mine)) {
                    continue;
                }
                c.srcAddr = Sockaddr.of(mine, port);
            } else if (source && port != 0) {
                c.srcAddr = Sockaddr.of(mine, port);
            } else if (nodeAddr != null) {
                if (nodeAddr.getAddress().length != mine.getAddress().length) {
                    continue;
                }
                c.destAddr = Sockaddr.of(nodeAddr, port);
            }
            if (hintDst != null) {
                if (Sockaddr.toInet(hintDst).getAddress().getAddress().length != mine.getAddress().length) {
                    continue;
                }
                c.destAddr = hintDst.clone();
            }
            out.add(c);
        }
        return out;
    }

    private static boolean namesMatch(FabricInfo i, FabricInfo hints) {
        if (hints.addrFormat != null && hints.addrFormat != AddressFormat.UNSPEC && hints.addrFormat != i.addrFormat) {
            return false;
        }
        if (hints.fabricAttr != null && hints.fabricAttr.name != null && !hints.fabricAttr.name.equals(i.fabricAttr.name)) {
            return false;
        }
        if (hints.domainAttr != null) {
            if (hints.domainAttr.name != null && !hints.domainAttr.name.equals(i.domainAttr.name)) {
                return false;
            }
            if (hints.domainAttr.mrMode != 0 && hints.domainAttr.mrMode != MrMode.BASIC
                    && hints.domainAttr.mrMode != MrMode.SCALABLE
                    && (hints.domainAttr.mrMode & MR_MODE) != MR_MODE) {
                return false; // verbs needs every one of its mr_mode bits
            }
        }
        return true;
    }
}
