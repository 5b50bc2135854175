package io.jfabric;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints infos the way libfabric 1.17's {@code fi_tostr(FI_TYPE_INFO)} does (src/fi_tostr.c), which is
 * what {@code fi_info -v} shows after each "---" line, and the short listing of plain {@code fi_info}.
 * Flag lists use fi_tostr's own name order and its "[ A, B ]" form ("[  ]" when empty).
 *
 * <p>Differences: {@code handle} prints as "(nil)" or an identity hash, not a C pointer; {@code nic}
 * prints "(nil)", or only the device name when the info carries one; address formats other than the
 * sockaddr family and FI_ADDR_STR print as "fi_addr_&lt;n&gt;://" plus hex bytes.
 */
public final class InfoPrinter {
    private static final String TAB = "    ";
    private static final long REMOTE_CQ_DATA = 1L << 17;

    /** fi_tostr's caps order (it differs from bit order: FI_HMEM comes last). */
    private static final Object[] CAPS = {
        Caps.MSG, "FI_MSG", Caps.RMA, "FI_RMA", Caps.TAGGED, "FI_TAGGED", Caps.ATOMIC, "FI_ATOMIC",
        Caps.MULTICAST, "FI_MULTICAST", Caps.COLLECTIVE, "FI_COLLECTIVE", Caps.READ, "FI_READ", Caps.WRITE, "FI_WRITE",
        Caps.RECV, "FI_RECV", Caps.SEND, "FI_SEND", Caps.REMOTE_READ, "FI_REMOTE_READ",
        Caps.REMOTE_WRITE, "FI_REMOTE_WRITE", Caps.MULTI_RECV, "FI_MULTI_RECV", REMOTE_CQ_DATA, "FI_REMOTE_CQ_DATA",
        Caps.TRIGGER, "FI_TRIGGER", Caps.FENCE, "FI_FENCE", Caps.VARIABLE_MSG, "FI_VARIABLE_MSG",
        Caps.RMA_PMEM, "FI_RMA_PMEM", Caps.SOURCE_ERR, "FI_SOURCE_ERR", Caps.LOCAL_COMM, "FI_LOCAL_COMM",
        Caps.REMOTE_COMM, "FI_REMOTE_COMM", Caps.SHARED_AV, "FI_SHARED_AV", Caps.RMA_EVENT, "FI_RMA_EVENT",
        Caps.SOURCE, "FI_SOURCE", Caps.NAMED_RX_CTX, "FI_NAMED_RX_CTX", Caps.DIRECTED_RECV, "FI_DIRECTED_RECV",
        Caps.HMEM, "FI_HMEM", Caps.AV_USER_ID, "FI_AV_USER_ID",
    };
    private static final Object[] MODES = {
        Mode.CONTEXT, "FI_CONTEXT", Mode.MSG_PREFIX, "FI_MSG_PREFIX", Mode.ASYNC_IOV, "FI_ASYNC_IOV",
        Mode.RX_CQ_DATA, "FI_RX_CQ_DATA", Mode.LOCAL_MR, "FI_LOCAL_MR", Mode.NOTIFY_FLAGS_ONLY, "FI_NOTIFY_FLAGS_ONLY",
        Mode.RESTRICTED_COMP, "FI_RESTRICTED_COMP", Mode.CONTEXT2, "FI_CONTEXT2", Mode.BUFFERED_RECV, "FI_BUFFERED_RECV",
    };
    private static final Object[] OP_FLAGS = {
        Caps.MULTICAST, "FI_MULTICAST", OpFlags.MULTI_RECV, "FI_MULTI_RECV", OpFlags.REMOTE_CQ_DATA, "FI_REMOTE_CQ_DATA",
        OpFlags.MORE, "FI_MORE", OpFlags.PEEK, "FI_PEEK", OpFlags.TRIGGER, "FI_TRIGGER", OpFlags.FENCE, "FI_FENCE",
        OpFlags.COMPLETION, "FI_COMPLETION", OpFlags.INJECT, "FI_INJECT", OpFlags.INJECT_COMPLETE, "FI_INJECT_COMPLETE",
        OpFlags.TRANSMIT_COMPLETE, "FI_TRANSMIT_COMPLETE", OpFlags.DELIVERY_COMPLETE, "FI_DELIVERY_COMPLETE",
        OpFlags.MATCH_COMPLETE, "FI_MATCH_COMPLETE", OpFlags.AFFINITY, "FI_AFFINITY", OpFlags.CLAIM, "FI_CLAIM",
        OpFlags.DISCARD, "FI_DISCARD",
    };
    /** msg_order bits, including 1.17's per-class RMA/atomic bits (32..39) that MsgOrder leaves out. */
    private static final Object[] MSG_ORDER = {
        MsgOrder.RAR, "FI_ORDER_RAR", MsgOrder.RAW, "FI_ORDER_RAW", MsgOrder.RAS, "FI_ORDER_RAS",
        MsgOrder.WAR, "FI_ORDER_WAR", MsgOrder.WAW, "FI_ORDER_WAW", MsgOrder.WAS, "FI_ORDER_WAS",
        MsgOrder.SAR, "FI_ORDER_SAR", MsgOrder.SAW, "FI_ORDER_SAW", MsgOrder.SAS, "FI_ORDER_SAS",
        1L << 32, "FI_ORDER_RMA_RAR", 1L << 33, "FI_ORDER_RMA_RAW", 1L << 34, "FI_ORDER_RMA_WAR",
        1L << 35, "FI_ORDER_RMA_WAW", 1L << 36, "FI_ORDER_ATOMIC_RAR", 1L << 37, "FI_ORDER_ATOMIC_RAW",
        1L << 38, "FI_ORDER_ATOMIC_WAR", 1L << 39, "FI_ORDER_ATOMIC_WAW",
    };
    private static final Object[] MR_MODES = {
        (long) MrMode.BASIC, "FI_MR_BASIC", (long) MrMode.SCALABLE, "FI_MR_SCALABLE", (long) MrMode.LOCAL, "FI_MR_LOCAL",
        (long) MrMode.RAW, "FI_MR_RAW", (long) MrMode.VIRT_ADDR, "FI_MR_VIRT_ADDR", (long) MrMode.ALLOCATED,
        "FI_MR_ALLOCATED", (long) MrMode.PROV_KEY, "FI_MR_PROV_KEY", (long) MrMode.MMU_NOTIFY, "FI_MR_MMU_NOTIFY",
        (long) MrMode.RMA_EVENT, "FI_MR_RMA_EVENT", (long) MrMode.ENDPOINT, "FI_MR_ENDPOINT",
        (long) MrMode.HMEM, "FI_MR_HMEM", (long) MrMode.COLLECTIVE, "FI_MR_COLLECTIVE",
    };

    /** ofi_tostr_cq_event_flags's order: the flags a completion entry carries. */
    private static final Object[] CQ_EVENT_FLAGS = {
        OpFlags.SEND, "FI_SEND", OpFlags.RECV, "FI_RECV", OpFlags.RMA, "FI_RMA", OpFlags.ATOMIC, "FI_ATOMIC",
        OpFlags.MSG, "FI_MSG", OpFlags.TAGGED, "FI_TAGGED", OpFlags.READ, "FI_READ", OpFlags.WRITE, "FI_WRITE",
        OpFlags.REMOTE_READ, "FI_REMOTE_READ", OpFlags.REMOTE_WRITE, "FI_REMOTE_WRITE",
        OpFlags.REMOTE_CQ_DATA, "FI_REMOTE_CQ_DATA", OpFlags.MULTI_RECV, "FI_MULTI_RECV", OpFlags.MORE, "FI_MORE",
        OpFlags.CLAIM, "FI_CLAIM",
    };

    private InfoPrinter() {
    }

    /**
     * fi_tostr(info, FI_TYPE_INFO): the "fi_info:" block.
     *
     * @param info the info
     * @return the block, each line ending in a newline
     */
    public static String toString(FabricInfo info) {
        StringBuilder b = new StringBuilder("fi_info:\n");
        line(b, TAB, "caps", list(info.caps, CAPS));
        line(b, TAB, "mode", list(info.mode, MODES));
        line(b, TAB, "addr_format", name(info.addrFormat));
        line(b, TAB, "src_addrlen", Integer.toString(addrLen(info.addrFormat, info.srcAddr)));
        line(b, TAB, "dest_addrlen", Integer.toString(addrLen(info.addrFormat, info.destAddr)));
        line(b, TAB, "src_addr", address(info.addrFormat, info.srcAddr));
        line(b, TAB, "dest_addr", address(info.addrFormat, info.destAddr));
        line(b, TAB, "handle", info.handle == null ? "(nil)" : "0x" + Integer.toHexString(System.identityHashCode(info.handle)));
        tx(b, info.txAttr);
        rx(b, info.rxAttr);
        ep(b, info.epAttr);
        domain(b, info.domainAttr);
        fabric(b, info.fabricAttr);
        if (info.nicName == null) {
            line(b, TAB, "nic", "(nil)");
        } else {
            b.append(TAB).append("nic:\n").append(TAB).append(TAB).append("fi_device_attr:\n")
                    .append(TAB).append(TAB).append(TAB).append("name: ").append(info.nicName).append('\n');
        }
        return b.toString();
    }

    /**
     * One line for {@link FabricInfo#toString()}: plain fi_info's fields, then the addresses as fi_straddr
     * prints them and the caps as fi_info -v does.
     */
    static String oneLine(FabricInfo info) {
        FabricAttr f = info.fabricAttr;
        return "fi_info[provider: " + str(f == null ? null : f.provName)
                + ", fabric: " + str(f == null ? null : f.name)
                + ", domain: " + str(info.domainAttr == null ? null : info.domainAttr.name)
                + ", type: " + (info.epAttr == null ? "(null)" : name(info.epAttr.type))
                + ", protocol: " + (info.epAttr == null ? "(null)" : name(info.epAttr.protocol))
                + ", src_addr: " + address(info.addrFormat, info.srcAddr)
                + ", dest_addr: " + address(info.addrFormat, info.destAddr)
                + ", caps: " + list(info.caps, CAPS) + "]";
    }

    /** A completion entry with fi_cq_tagged_entry's field names, its flags as fi_tostr(FI_TYPE_CQ_EVENT_FLAGS). */
    static String cqEntry(CqEntry e) {
        return "fi_cq_tagged_entry[" + cqFields(e) + "]";
    }

    /** An error entry with fi_cq_err_entry's field names; err by name and fi_strerror text. */
    static String cqErrEntry(CqErrEntry e) {
        return "fi_cq_err_entry[" + cqFields(e) + ", olen: " + e.olen + ", err: " + Errno.name(e.err) + " ("
                + Errno.strerror(e.err) + "), prov_errno: " + e.provErrno
                + ", err_data_size: " + (e.errData == null ? 0 : e.errData.length) + "]";
    }

    private static String cqFields(CqEntry e) {
        return "op_context: " + e.context + ", flags: " + list(e.flags, CQ_EVENT_FLAGS) + ", len: " + e.len
                + ", buf: 0x" + Long.toHexString(e.buf) + ", data: 0x" + Long.toHexString(e.data)
                + ", tag: 0x" + Long.toHexString(e.tag)
                // FI_ADDR_NOTAVAIL and FI_ADDR_UNSPEC are the same value, as in libfabric
                + ", src_addr: " + (e.srcAddr == Fabrics.ADDR_NOTAVAIL ? "FI_ADDR_NOTAVAIL" : Long.toString(e.srcAddr));
    }

    /**
     * What {@code fi_info -v} prints: each info preceded by a "---" line.
     *
     * @param infos the infos
     * @return the text
     */
    public static String verbose(List<FabricInfo> infos) {
        StringBuilder b = new StringBuilder();
        for (FabricInfo i : infos) {
            b.append("---\n").append(toString(i));
        }
        return b.toString();
    }

    /**
     * Plain {@code fi_info}'s entry: provider, fabric, domain, version, type, protocol.
     *
     * @param info the info
     * @return the entry, each line ending in a newline
     */
    public static String summary(FabricInfo info) {
        StringBuilder b = new StringBuilder();
        b.append("provider: ").append(str(info.fabricAttr == null ? null : info.fabricAttr.provName)).append('\n');
        b.append(TAB).append("fabric: ").append(str(info.fabricAttr == null ? null : info.fabricAttr.name)).append('\n');
        b.append(TAB).append("domain: ").append(str(info.domainAttr == null ? null : info.domainAttr.name)).append('\n');
        b.append(TAB).append("version: ").append(version(info.fabricAttr == null ? 0 : info.fabricAttr.provVersion))
                .append('\n');
        b.append(TAB).append("type: ").append(info.epAttr == null ? "(null)" : name(info.epAttr.type)).append('\n');
        b.append(TAB).append("protocol: ").append(info.epAttr == null ? "(null)" : name(info.epAttr.protocol))
                .append('\n');
        return b.toString();
    }

    /**
     * {@code fi_info -l}'s entry: the name and its version.
     *
     * @param name the provider name
     * @param version FI_VERSION(major, minor)
     * @return the entry
     */
    public static String providerEntry(String name, int version) {
        return name + ":\n" + TAB + "version: " + version(version) + "\n";
    }

    /**
     * FI_VERSION as text.
     *
     * @param v FI_VERSION(major, minor)
     * @return "major.minor"
     */
    public static String version(int v) {
        return Fabrics.major(v) + "." + Fabrics.minor(v);
    }

    /**
     * fi_tostr(FI_TYPE_CAPS) without brackets, in fi_tostr's name order.
     *
     * @param caps Caps bits
     * @return e.g. "FI_MSG, FI_RMA"
     */
    public static String caps(long caps) {
        return names(caps, CAPS);
    }

    /**
     * fi_tostr(FI_TYPE_MR_MODE) without brackets.
     *
     * @param mrMode MrMode bits
     * @return e.g. "FI_MR_LOCAL, FI_MR_VIRT_ADDR"
     */
    public static String mrMode(int mrMode) {
        return names(mrMode & 0xFFFFFFFFL, MR_MODES);
    }

    /**
     * fi_straddr: how libfabric prints an address.
     *
     * @param format the address format; SOCKADDR and UNSPEC are read from the sockaddr family
     * @param addr the address bytes, or null
     * @return "fi_sockaddr_in://127.0.0.1:9228", "fi_sockaddr_in6://[::1]:0", the string of an FI_ADDR_STR
     *     address, "fi_addr_&lt;n&gt;://" plus hex for other formats, or "(null)"
     */
    public static String address(AddressFormat format, byte[] addr) {
        if (addr == null) {
            return "(null)";
        }
        AddressFormat f = format == null ? AddressFormat.UNSPEC : format;
        if (f == AddressFormat.SOCKADDR) {
            f = family(addr) == 10 ? AddressFormat.SOCKADDR_IN6 : AddressFormat.SOCKADDR_IN;
        }
        switch (f) {
            case SOCKADDR_IN:
                if (addr.length >= 8) {
                    return "fi_sockaddr_in://" + (addr[4] & 0xFF) + "." + (addr[5] & 0xFF) + "." + (addr[6] & 0xFF)
                            + "." + (addr[7] & 0xFF) + ":" + port(addr);
                }
                break;
            case SOCKADDR_IN6:
                if (addr.length >= 24) {
                    return "fi_sockaddr_in6://[" + ipv6(addr, 8) + "]:" + port(addr);
                }
                break;
            case ADDR_STR:
                int end = 0;
                while (end < addr.length && addr[end] != 0) {
                    end++;
                }
                return new String(addr, 0, end, StandardCharsets.UTF_8);
            default:
                break;
        }
        StringBuilder hex = new StringBuilder("fi_addr_" + f.value() + "://");
        for (byte x : addr) {
            hex.append(String.format("%02x", x & 0xFF));
        }
        return hex.toString();
    }

    private static int family(byte[] a) {
        // sa_family_t is host order (little-endian on the platforms jfabric runs on)
        return a.length < 2 ? 0 : (a[0] & 0xFF) | (a[1] & 0xFF) << 8;
    }

    private static int port(byte[] a) {
        return (a[2] & 0xFF) << 8 | (a[3] & 0xFF);
    }

    /**
     * inet_ntop(AF_INET6) text of a 16-byte address, which is how libfabric prints IPv6 addresses and fabric
     * names (Java's Inet6Address.getHostAddress does not compress zeros).
     *
     * @param addr16 the 16 address bytes
     * @return e.g. "fe80::1", "::1"
     * @throws IllegalArgumentException unless the array has 16 bytes
     */
    public static String inet6(byte[] addr16) {
        if (addr16 == null || addr16.length != 16) {
            throw new IllegalArgumentException("an IPv6 address has 16 bytes");
        }
        return ipv6(addr16, 0);
    }

    /** inet_ntop(AF_INET6) text: lower-case hex, the longest run (>1) of zero groups as "::". */
    static String ipv6(byte[] a, int off) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = (a[off + 2 * i] & 0xFF) << 8 | (a[off + 2 * i + 1] & 0xFF);
        }
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        if (bestLen < 2) {
            bestStart = -1;
        }
        if (bestStart == 0 && (bestLen == 6 || (bestLen == 5 && g[5] == 0xFFFF))) {
            String v4 = (g[6] >> 8) + "." + (g[6] & 0xFF) + "." + (g[7] >> 8) + "." + (g[7] & 0xFF);
            return bestLen == 6 ? "::" + v4 : "::ffff:" + v4;
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                s.append("::");
                i += bestLen - 1;
                continue;
            }
            if (!s.isEmpty() && s.charAt(s.length() - 1) != ':') {
                s.append(':');
            }
            s.append(Integer.toHexString(g[i]));
        }
        return s.toString();
    }

    private static int addrLen(AddressFormat f, byte[] addr) {
        if (addr == null) {
            return 0;
        }
        // an FI_ADDR_STR address length counts its terminating NUL, as in C
        return f == AddressFormat.ADDR_STR && (addr.length == 0 || addr[addr.length - 1] != 0)
                ? addr.length + 1 : addr.length;
    }

    private static void tx(StringBuilder b, TxAttr a) {
        if (a == null) {
            b.append(TAB).append("fi_tx_attr: (null)\n");
            return;
        }
        String p = TAB + TAB;
        b.append(TAB).append("fi_tx_attr:\n");
        line(b, p, "caps", list(a.caps, CAPS));
        line(b, p, "mode", list(a.mode, MODES));
        line(b, p, "op_flags", list(a.opFlags, OP_FLAGS));
        line(b, p, "msg_order", list(a.msgOrder, MSG_ORDER));
        line(b, p, "comp_order", compOrder(a.compOrder));
        line(b, p, "inject_size", size(a.injectSize));
        line(b, p, "size", size(a.size));
        line(b, p, "iov_limit", size(a.iovLimit));
        line(b, p, "rma_iov_limit", size(a.rmaIovLimit));
        line(b, p, "tclass", "0x" + Integer.toHexString(a.tclass));
    }

    private static void rx(StringBuilder b, RxAttr a) {
        if (a == null) {
            b.append(TAB).append("fi_rx_attr: (null)\n");
            return;
        }
        String p = TAB + TAB;
        b.append(TAB).append("fi_rx_attr:\n");
        line(b, p, "caps", list(a.caps, CAPS));
        line(b, p, "mode", list(a.mode, MODES));
        line(b, p, "op_flags", list(a.opFlags, OP_FLAGS));
        line(b, p, "msg_order", list(a.msgOrder, MSG_ORDER));
        line(b, p, "comp_order", compOrder(a.compOrder));
        line(b, p, "total_buffered_recv", size(a.totalBufferedRecv));
        line(b, p, "size", size(a.size));
        line(b, p, "iov_limit", size(a.iovLimit));
    }

    private static void ep(StringBuilder b, EndpointAttr a) {
        if (a == null) {
            b.append(TAB).append("fi_ep_attr: (null)\n");
            return;
        }
        String p = TAB + TAB;
        b.append(TAB).append("fi_ep_attr:\n");
        line(b, p, "type", name(a.type));
        line(b, p, "protocol", name(a.protocol));
        line(b, p, "protocol_version", Integer.toString(a.protocolVersion));
        line(b, p, "max_msg_size", size(a.maxMsgSize));
        line(b, p, "msg_prefix_size", size(a.msgPrefixSize));
        line(b, p, "max_order_raw_size", size(a.maxOrderRawSize));
        line(b, p, "max_order_war_size", size(a.maxOrderWarSize));
        line(b, p, "max_order_waw_size", size(a.maxOrderWawSize));
        line(b, p, "mem_tag_format", String.format("0x%016x", a.memTagFormat));
        line(b, p, "tx_ctx_cnt", a.txCtxCnt == Fabrics.SHARED_CONTEXT ? "FI_SHARED_CONTEXT" : size(a.txCtxCnt));
        line(b, p, "rx_ctx_cnt", a.rxCtxCnt == Fabrics.SHARED_CONTEXT ? "FI_SHARED_CONTEXT" : size(a.rxCtxCnt));
        line(b, p, "auth_key_size", Integer.toString(a.authKey == null ? 0 : a.authKey.length));
    }

    private static void domain(StringBuilder b, DomainAttr a) {
        if (a == null) {
            b.append(TAB).append("fi_domain_attr: (null)\n");
            return;
        }
        String p = TAB + TAB;
        b.append(TAB).append("fi_domain_attr:\n");
        line(b, p, "domain", "0x0");
        line(b, p, "name", str(a.name));
        line(b, p, "threading", name(a.threading));
        line(b, p, "control_progress", name(a.controlProgress));
        line(b, p, "data_progress", name(a.dataProgress));
        line(b, p, "resource_mgmt", name(a.resourceMgmt));
        line(b, p, "av_type", name(a.avType));
        line(b, p, "mr_mode", list(a.mrMode & 0xFFFFFFFFL, MR_MODES));
        line(b, p, "mr_key_size", size(a.mrKeySize));
        line(b, p, "cq_data_size", size(a.cqDataSize));
        line(b, p, "cq_cnt", size(a.cqCnt));
        line(b, p, "ep_cnt", size(a.epCnt));
        line(b, p, "tx_ctx_cnt", size(a.txCtxCnt));
        line(b, p, "rx_ctx_cnt", size(a.rxCtxCnt));
        line(b, p, "max_ep_tx_ctx", size(a.maxEpTxCtx));
        line(b, p, "max_ep_rx_ctx", size(a.maxEpRxCtx));
        line(b, p, "max_ep_stx_ctx", size(a.maxEpStxCtx));
        line(b, p, "max_ep_srx_ctx", size(a.maxEpSrxCtx));
        line(b, p, "cntr_cnt", size(a.cntrCnt));
        line(b, p, "mr_iov_limit", size(a.mrIovLimit));
        line(b, p, "caps", list(a.caps, CAPS));
        line(b, p, "mode", list(a.mode, MODES));
        line(b, p, "auth_key_size", Integer.toString(a.authKey == null ? 0 : a.authKey.length));
        line(b, p, "max_err_data", size(a.maxErrData));
        line(b, p, "mr_cnt", size(a.mrCnt));
        line(b, p, "tclass", "0x" + Integer.toHexString(a.tclass));
    }

    private static void fabric(StringBuilder b, FabricAttr a) {
        if (a == null) {
            b.append(TAB).append("fi_fabric_attr: (null)\n");
            return;
        }
        String p = TAB + TAB;
        b.append(TAB).append("fi_fabric_attr:\n");
        line(b, p, "name", str(a.name));
        line(b, p, "prov_name", str(a.provName));
        line(b, p, "prov_version", version(a.provVersion));
        line(b, p, "api_version", version(a.apiVersion));
    }

    private static void line(StringBuilder b, String prefix, String key, String value) {
        b.append(prefix).append(key).append(": ").append(value).append('\n');
    }

    private static String list(long mask, Object[] table) {
        return "[ " + names(mask, table) + " ]";
    }

    private static String names(long mask, Object[] table) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < table.length; i += 2) {
            if ((mask & ((Number) table[i]).longValue()) != 0) {
                out.add((String) table[i + 1]);
            }
        }
        return String.join(", ", out);
    }

    /** ofi_tostr_comporder: NONE or STRICT by the low nine bits, then FI_ORDER_DATA. */
    private static String compOrder(long order) {
        List<String> out = new ArrayList<>();
        if ((order & MsgOrder.STRICT) == 0) {
            out.add("FI_ORDER_NONE");
        } else if ((order & MsgOrder.STRICT) == MsgOrder.STRICT) {
            out.add("FI_ORDER_STRICT");
        }
        if ((order & MsgOrder.DATA) != 0) {
            out.add("FI_ORDER_DATA");
        }
        return "[ " + String.join(", ", out) + " ]";
    }

    private static String size(long v) {
        return Long.toUnsignedString(v);
    }

    private static String str(String s) {
        return s == null ? "(null)" : s;
    }

    private static String name(Enum<?> e) {
        if (e == null) {
            return "Unknown";
        }
        return switch (e) {
            case AddressFormat f -> f.cName();
            case EndpointType t -> t.cName();
            case Protocol p -> p.cName();
            case Threading t -> t.cName();
            case Progress p -> p.cName();
            case ResourceMgmt r -> r.cName();
            case AvType t -> t.cName();
            default -> e.name();
        };
    }
}
