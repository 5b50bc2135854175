package io.jfabric.spi;

import io.jfabric.AddressFormat;
import io.jfabric.Caps;
import io.jfabric.DomainAttr;
import io.jfabric.EndpointAttr;
import io.jfabric.EndpointType;
import io.jfabric.FabricAttr;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Mode;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.ResourceMgmt;
import io.jfabric.RxAttr;
import io.jfabric.Threading;
import io.jfabric.TxAttr;

/**
 * The individual checks of libfabric's {@code ofi_check_info} (prov/util/src/util_attr.c), in its
 * order, each returning the reason a provider info declines a hint in words, or null. A null
 * attribute in the hints means "not given", as a NULL attribute pointer does in C.
 */
final class InfoChecks {
    /** ofi.h's OFI_PRIMARY_TX_CAPS / OFI_PRIMARY_RX_CAPS: caps returned only when asked for. */
    static final long PRIMARY_TX = Caps.MSG | Caps.RMA | Caps.TAGGED | Caps.ATOMIC | Caps.MULTICAST
            | Caps.READ | Caps.WRITE | Caps.SEND | Caps.COLLECTIVE | Caps.NAMED_RX_CTX | Caps.HMEM;
    static final long PRIMARY_RX = Caps.MSG | Caps.RMA | Caps.TAGGED | Caps.ATOMIC | Caps.REMOTE_READ
            | Caps.REMOTE_WRITE | Caps.RECV | Caps.DIRECTED_RECV | Caps.VARIABLE_MSG | Caps.COLLECTIVE | Caps.HMEM;
    static final long SECONDARY_TX = Caps.TRIGGER | Caps.FENCE | Caps.RMA_PMEM;
    static final long SECONDARY_RX = Caps.MULTI_RECV | Caps.TRIGGER | Caps.RMA_PMEM | Caps.SOURCE
            | Caps.RMA_EVENT | Caps.SOURCE_ERR;
    /** OFI_PRIMARY_CAPS: a caps hint drops every other primary cap (LOCAL_COMM too) from the output. */
    static final long PRIMARY = Caps.PRIMARY;
    /** OFI_SECONDARY_CAPS plus FI_AV_USER_ID. */
    static final long SECONDARY = Caps.SECONDARY;
    /** Rx caps of old applications that tx_attr checks ignore (OFI_IGNORED_TX_CAPS). */
    static final long IGNORED_TX = Caps.REMOTE_READ | Caps.REMOTE_WRITE | Caps.RECV | Caps.DIRECTED_RECV
            | Caps.VARIABLE_MSG | Caps.MULTI_RECV | Caps.SOURCE | Caps.RMA_EVENT | Caps.SOURCE_ERR;
    /** Tx caps of old applications that rx_attr checks ignore (OFI_IGNORED_RX_CAPS). */
    static final long IGNORED_RX = Caps.READ | Caps.WRITE | Caps.SEND | Caps.FENCE | Caps.MULTICAST
            | Caps.NAMED_RX_CTX;
    /** mr_mode bits that only matter to an RMA target (OFI_MR_MODE_RMA_TARGET). */
    static final int MR_RMA_TARGET = MrMode.RAW | MrMode.VIRT_ADDR | MrMode.PROV_KEY | MrMode.RMA_EVENT;
    static final int MR_LEGACY = MrMode.BASIC | MrMode.SCALABLE;
    static final int V1_5 = Fabrics.version(1, 5);

    private InfoChecks() {
    }

    static String explain(FabricInfo prov, FabricInfo hints, int api) {
        if (hints == null) {
            return null;
        }
        String r;
        if (hints.epAttr != null && (r = epType(prov.epAttr, hints.epAttr)) != null) {
            return r;
        }
        long missing = hints.caps & ~prov.caps;
        if (missing != 0) {
            return "caps " + Caps.toString(missing) + " not supported";
        }
        long provMode = requiredMode(api, hints, prov);
        if ((hints.mode & provMode) != provMode) {
            return "needs mode " + Mode.toString(provMode & ~hints.mode) + ", which the hints' mode does not accept";
        }
        if (!validAddrFormat(prov.addrFormat, hints.addrFormat)) {
            return "addr_format " + hints.addrFormat.cName() + " not supported (uses " + prov.addrFormat.cName() + ")";
        }
        if (hints.fabricAttr != null && (r = fabricAttr(prov.fabricAttr, hints.fabricAttr)) != null) {
            return r;
        }
        if (hints.domainAttr != null && (r = domainAttr(prov.domainAttr, hints, api)) != null) {
            return r;
        }
        if (hints.epAttr != null && (r = epAttr(prov, hints)) != null) {
            return r;
        }
        if (hints.rxAttr != null && (r = rxAttr(prov.rxAttr, hints.rxAttr, hints.mode)) != null) {
            return r;
        }
        if (hints.txAttr != null && (r = txAttr(prov.txAttr, hints.txAttr, hints.mode)) != null) {
            return r;
        }
        return null;
    }

    static String epType(EndpointAttr prov, EndpointAttr user) {
        if (user.type != EndpointType.UNSPEC && prov.type != EndpointType.UNSPEC && user.type != prov.type) {
            return "ep_type " + user.type.cName() + " not supported (offers " + prov.type.cName() + ")";
        }
        return null;
    }

    /** ofi_mr_get_prov_mode: an FI_MR_LOCAL provider needs FI_LOCAL_MR mode unless the hints speak mr_mode. */
    static long requiredMode(int api, FabricInfo user, FabricInfo prov) {
        boolean userSaysMrLocal = user.domainAttr != null && (user.domainAttr.mrMode & MrMode.LOCAL) != 0;
        if (api < V1_5 || (user.domainAttr != null && !userSaysMrLocal)) {
            return (prov.domainAttr.mrMode & MrMode.LOCAL) != 0 ? prov.mode | Mode.LOCAL_MR : prov.mode;
        }
        return prov.mode;
    }

    /** ofi_valid_addr_format. */
    static boolean validAddrFormat(AddressFormat prov, AddressFormat user) {
        if (user == null || prov == null || user == AddressFormat.UNSPEC || prov == AddressFormat.UNSPEC) {
            return true;
        }
        int u = user.value();
        return switch (prov) {
            case SOCKADDR, SOCKADDR_IN6 -> u <= AddressFormat.SOCKADDR_IN6.value();
            case SOCKADDR_IN -> u <= AddressFormat.SOCKADDR_IN.value();
            case SOCKADDR_IB -> u <= AddressFormat.SOCKADDR_IB.value();
            default -> prov == user;
        };
    }

    /**
     * ofi_check_fabric_attr, plus a fabric-name check: libfabric 1.17's socket providers ignore a
     * fabric or domain name that matches nothing, jfabric declines it (fi_getinfo(3), fabtests neg1).
     */
    static String fabricAttr(FabricAttr prov, FabricAttr user) {
        if (user.name != null && prov.name != null && !user.name.equalsIgnoreCase(prov.name)) {
            return "fabric '" + user.name + "' not offered (offers '" + prov.name + "')";
        }
        if (prov.provName != null && user.provName != null && !namesCover(user.provName, prov.provName)) {
            return "provider '" + prov.provName + "' not named by hints prov_name '" + user.provName + "'";
        }
        if (Integer.compareUnsigned(user.provVersion, prov.provVersion) > 0) {
            return "provider version " + versionText(prov.provVersion) + " older than the hints' "
                    + versionText(user.provVersion);
        }
        if (user.apiVersion != 0 && Integer.compareUnsigned(user.apiVersion, prov.apiVersion) < 0) {
            return "needs API version " + versionText(prov.apiVersion);
        }
        return null;
    }

    /** strcasestr(user, prov), made agnostic of layering order ("ofi_rxm;tcp" covers "tcp;ofi_rxm"). */
    private static boolean namesCover(String user, String prov) {
        if (user.toLowerCase().contains(prov.toLowerCase())) {
            return true;
        }
        var wanted = java.util.Arrays.stream(user.split(";")).map(String::trim).map(String::toLowerCase).toList();
        for (String part : prov.split(";")) {
            if (!wanted.contains(part.trim().toLowerCase())) {
                return false;
            }
        }
        return true;
    }

    static String versionText(int v) {
        return Fabrics.major(v) + "." + Fabrics.minor(v);
    }

    /** fi_thread_level: SAFE is the most parallel (1), UNSPEC the least demanding (6). */
    static int threadLevel(Threading t) {
        return switch (t == null ? Threading.UNSPEC : t) {
            case SAFE -> 1;
            case FID -> 2;
            case ENDPOINT -> 3;
            case COMPLETION -> 4;
            case DOMAIN -> 5;
            case UNSPEC -> 6;
        };
    }

    static int progressLevel(Progress p) {
        return switch (p == null ? Progress.UNSPEC : p) {
            case AUTO -> 1;
            case MANUAL -> 2;
            case UNSPEC -> 3;
        };
    }

    static int resourceLevel(ResourceMgmt r) {
        return switch (r == null ? ResourceMgmt.UNSPEC : r) {
            case ENABLED -> 1;
            case DISABLED -> 2;
            case UNSPEC -> 3;
        };
    }

    static String domainAttr(DomainAttr prov, FabricInfo userInfo, int api) {
        DomainAttr user = userInfo.domainAttr;
        if (user.name != null && prov.name != null && !user.name.equalsIgnoreCase(prov.name)) {
            return "domain '" + user.name + "' not offered (offers '" + prov.name + "')";
        }
        if (threadLevel(user.threading) < threadLevel(prov.threading)) {
            return "threading " + user.threading.cName() + " not supported (offers " + prov.threading.cName() + ")";
        }
        if (progressLevel(user.controlProgress) < progressLevel(prov.controlProgress)) {
            return "control_progress " + user.controlProgress.cName() + " not supported (offers "
                    + prov.controlProgress.cName() + ")";
        }
        if (progressLevel(user.dataProgress) < progressLevel(prov.dataProgress)) {
            return "data_progress " + user.dataProgress.cName() + " not supported (offers "
                    + prov.dataProgress.cName() + ")";
        }
        if (resourceLevel(user.resourceMgmt) < resourceLevel(prov.resourceMgmt)) {
            return "resource_mgmt " + user.resourceMgmt.cName() + " not supported (offers "
                    + prov.resourceMgmt.cName() + ")";
        }
        if (prov.avType != io.jfabric.AvType.UNSPEC && user.avType != null && user.avType != io.jfabric.AvType.UNSPEC
                && prov.avType != user.avType) {
            return "av_type " + user.avType.cName() + " not supported (offers " + prov.avType.cName() + ")";
        }
        String r;
        if ((r = tooLarge("cq_data_size", user.cqDataSize, prov.cqDataSize)) != null) {
            return r;
        }
        if ((r = mrMode(api, prov.mrMode, userInfo)) != null) {
            return r;
        }
        if (api < V1_5) {
            return null;
        }
        if ((r = tooLarge("cntr_cnt", user.cntrCnt, prov.cntrCnt)) != null
                || (r = tooLarge("mr_iov_limit", user.mrIovLimit, prov.mrIovLimit)) != null) {
            return r;
        }
        if ((user.caps & ~prov.caps) != 0) {
            return "domain caps " + Caps.toString(user.caps & ~prov.caps) + " not supported";
        }
        if ((user.mode & prov.mode) != prov.mode) {
            return "needs domain mode " + Mode.toString(prov.mode & ~user.mode);
        }
        if ((r = tooLarge("max_err_data", user.maxErrData, prov.maxErrData)) != null
                || (r = tooLarge("mr_cnt", user.mrCnt, prov.mrCnt)) != null) {
            return r;
        }
        return null;
    }

    /** ofi_check_mr_mode. */
    static String mrMode(int api, int provMode, FabricInfo userInfo) {
        int userMode = userInfo.domainAttr.mrMode;
        if ((provMode & MrMode.LOCAL) != 0 && (userInfo.mode & Mode.LOCAL_MR) == 0 && (userMode & MrMode.LOCAL) == 0) {
            return "needs FI_MR_LOCAL (or mode FI_LOCAL_MR), which the hints do not accept";
        }
        if (api < V1_5) {
            boolean ok = switch (userMode) {
                case MrMode.UNSPEC -> (provMode & MR_LEGACY) != 0;
                case MrMode.BASIC -> (provMode & MrMode.BASIC) != 0;
                case MrMode.SCALABLE -> (provMode & MrMode.SCALABLE) != 0;
                default -> false;
            };
            return ok ? null : "mr_mode " + mrText(userMode) + " not supported under API "
                    + versionText(api) + " (offers " + mrText(provMode) + ")";
        }
        if ((userMode & MrMode.BASIC) != 0) {
            return (userMode & ~MrMode.BASIC) == 0 && (provMode & MrMode.BASIC) != 0 ? null
                    : "mr_mode FI_MR_BASIC " + ((userMode & ~MrMode.BASIC) != 0 ? "must appear alone"
                    : "not supported (offers " + mrText(provMode) + ")");
        }
        if ((userMode & MrMode.SCALABLE) != 0) {
            return (userMode & ~MrMode.SCALABLE) == 0 && (provMode & MrMode.SCALABLE) != 0 ? null
                    : "mr_mode FI_MR_SCALABLE " + ((userMode & ~MrMode.SCALABLE) != 0 ? "must appear alone"
                    : "not supported (offers " + mrText(provMode) + ")");
        }
        int needed = capMrMode(userInfo.caps, provMode);
        if (userMode != MrMode.UNSPEC && (userMode & needed) != needed) {
            return "needs mr_mode " + mrText(needed & ~userMode) + ", which the hints do not accept";
        }
        return null;
    }

    static String mrText(int mode) {
        return mode == 0 ? "[]" : MrMode.toString(mode);
    }

    /** ofi_cap_mr_mode: drops mr_mode bits the requested caps make unnecessary. */
    static int capMrMode(long caps, int mrMode) {
        int m = mrMode;
        if ((caps & Caps.HMEM) == 0) {
            m &= ~MrMode.HMEM;
        }
        if (!rmaTargetAllowed(caps)) {
            if ((m & (MrMode.LOCAL | MrMode.HMEM)) == 0) {
                return 0;
            }
            m &= ~MR_RMA_TARGET;
        }
        return m & ~MR_LEGACY;
    }

    /** ofi_rma_target_allowed. */
    static boolean rmaTargetAllowed(long caps) {
        if ((caps & (Caps.RMA | Caps.ATOMIC)) != 0) {
            if ((caps & (Caps.REMOTE_WRITE | Caps.REMOTE_READ)) != 0) {
                return true;
            }
            return (caps & (Caps.WRITE | Caps.READ)) == 0;
        }
        return false;
    }

    static String epAttr(FabricInfo provInfo, FabricInfo userInfo) {
        EndpointAttr prov = provInfo.epAttr;
        EndpointAttr user = userInfo.epAttr;
        DomainAttr dom = provInfo.domainAttr;
        if (user.protocol != null && user.protocol != Protocol.UNSPEC && user.protocol != prov.protocol) {
            return "protocol " + user.protocol.cName() + " not supported (speaks " + prov.protocol.cName() + ")";
        }
        if (user.protocolVersion != 0 && Integer.compareUnsigned(user.protocolVersion, prov.protocolVersion) > 0) {
            return "protocol_version " + user.protocolVersion + " too new (speaks " + prov.protocolVersion + ")";
        }
        String r;
        if ((r = tooLarge("max_msg_size", user.maxMsgSize, prov.maxMsgSize)) != null) {
            return r;
        }
        if ((r = contexts("tx", user.txCtxCnt, prov.txCtxCnt, dom.maxEpTxCtx, dom.maxEpStxCtx)) != null
                || (r = contexts("rx", user.rxCtxCnt, prov.rxCtxCnt, dom.maxEpRxCtx, dom.maxEpSrxCtx)) != null) {
            return r;
        }
        if ((userInfo.caps & (Caps.RMA | Caps.ATOMIC)) != 0) {
            if ((r = tooLarge("max_order_raw_size", user.maxOrderRawSize, prov.maxOrderRawSize)) != null
                    || (r = tooLarge("max_order_war_size", user.maxOrderWarSize, prov.maxOrderWarSize)) != null
                    || (r = tooLarge("max_order_waw_size", user.maxOrderWawSize, prov.maxOrderWawSize)) != null) {
                return r;
            }
        }
        int userKey = user.authKey == null ? 0 : user.authKey.length;
        int provKey = prov.authKey == null ? 0 : prov.authKey.length;
        if (userKey != 0 && userKey != provKey) {
            return "auth_key_size " + userKey + " not supported (takes " + provKey + ")";
        }
        if ((userInfo.caps & Caps.TAGGED) != 0 && user.memTagFormat != 0
                && Long.compareUnsigned(maxTag(user.memTagFormat), maxTag(prov.memTagFormat)) > 0) {
            return "mem_tag_format 0x" + Long.toHexString(user.memTagFormat) + " wider than supported 0x"
                    + Long.toHexString(prov.memTagFormat);
        }
        return null;
    }

    private static String contexts(String dir, long user, long prov, long maxCtx, long maxShared) {
        if (Long.compareUnsigned(user, maxCtx) > 0) {
            if (user == Fabrics.SHARED_CONTEXT) {
                return maxShared == 0 ? "shared " + dir + " contexts not supported" : null;
            }
            return dir + "_ctx_cnt " + Long.toUnsignedString(user) + " exceeds max_ep_" + dir + "_ctx "
                    + Long.toUnsignedString(maxCtx);
        }
        if (user == 0 && prov == Fabrics.SHARED_CONTEXT) {
            return "requires shared " + dir + " contexts (" + dir + "_ctx_cnt FI_SHARED_CONTEXT)";
        }
        return null;
    }

    /** ofi_max_tag: the largest tag a mem_tag_format can carry. */
    static long maxTag(long format) {
        return format == 0 ? 0 : -1L >>> Long.numberOfLeadingZeros(format);
    }

    static String rxAttr(RxAttr prov, RxAttr user, long infoMode) {
        long caps = user.caps & ~IGNORED_RX;
        if ((caps & ~prov.caps) != 0) {
            return "rx caps " + Caps.toString(caps & ~prov.caps) + " not supported";
        }
        long mode = user.mode != 0 ? user.mode : infoMode;
        if ((mode & prov.mode) != prov.mode) {
            return "rx needs mode " + Mode.toString(prov.mode & ~mode);
        }
        String r;
        if ((r = subset("rx op_flags", user.opFlags, prov.opFlags, io.jfabric.OpFlags::toString)) != null
                || (r = subset("rx msg_order", user.msgOrder, prov.msgOrder, io.jfabric.MsgOrder::toString)) != null
                || (r = subset("rx comp_order", user.compOrder, prov.compOrder, io.jfabric.MsgOrder::toString)) != null
                || (r = tooLarge("total_buffered_recv", user.totalBufferedRecv, prov.totalBufferedRecv)) != null
                || (r = tooLarge("rx size", user.size, prov.size)) != null
                || (r = tooLarge("rx iov_limit", user.iovLimit, prov.iovLimit)) != null) {
            return r;
        }
        return null;
    }

    static String txAttr(TxAttr prov, TxAttr user, long infoMode) {
        long caps = user.caps & ~IGNORED_TX;
        if ((caps & ~prov.caps) != 0) {
            return "tx caps " + Caps.toString(caps & ~prov.caps) + " not supported";
        }
        long mode = user.mode != 0 ? user.mode : infoMode;
        if ((mode & prov.mode) != prov.mode) {
            return "tx needs mode " + Mode.toString(prov.mode & ~mode);
        }
        String r;
        if ((r = subset("tx op_flags", user.opFlags, prov.opFlags, io.jfabric.OpFlags::toString)) != null
                || (r = subset("tx msg_order", user.msgOrder, prov.msgOrder, io.jfabric.MsgOrder::toString)) != null
                || (r = subset("tx comp_order", user.compOrder, prov.compOrder, io.jfabric.MsgOrder::toString)) != null
                || (r = tooLarge("inject_size", user.injectSize, prov.injectSize)) != null
                || (r = tooLarge("tx size", user.size, prov.size)) != null
                || (r = tooLarge("tx iov_limit", user.iovLimit, prov.iovLimit)) != null
                || (r = tooLarge("rma_iov_limit", user.rmaIovLimit, prov.rmaIovLimit)) != null) {
            return r;
        }
        return null;
    }

    private static String subset(String what, long user, long prov, java.util.function.LongFunction<String> names) {
        long extra = user & ~prov;
        return extra == 0 ? null : what + " " + names.apply(extra) + " not supported";
    }

    /** size_t limits compare unsigned: SIZE_MAX is -1L here. */
    private static String tooLarge(String what, long user, long prov) {
        return Long.compareUnsigned(user, prov) > 0
                ? what + " " + Long.toUnsignedString(user) + " exceeds the provider's " + Long.toUnsignedString(prov)
                : null;
    }
}
