package io.jfabric.provider.libfabric;

import io.jfabric.AddressFormat;
import io.jfabric.AvType;
import io.jfabric.DomainAttr;
import io.jfabric.EndpointAttr;
import io.jfabric.EndpointType;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Mode;
import io.jfabric.OpFlags;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.ResourceMgmt;
import io.jfabric.RxAttr;
import io.jfabric.Threading;
import io.jfabric.TxAttr;
import io.jfabric.Errno;
import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.LibC;
import io.jfabric.provider.libfabric.ffi.generated.fi_domain_attr;
import io.jfabric.provider.libfabric.ffi.generated.fi_ep_attr;
import io.jfabric.provider.libfabric.ffi.generated.fi_fabric_attr;
import io.jfabric.provider.libfabric.ffi.generated.fi_info;
import io.jfabric.provider.libfabric.ffi.generated.fi_rx_attr;
import io.jfabric.provider.libfabric.ffi.generated.fi_tx_attr;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.function.IntFunction;

/**
 * Translates between jfabric's {@link FabricInfo} and libfabric's {@code struct fi_info}, field by
 * field, both ways. Native provider names gain the {@code libfabric:} prefix on the way in and lose it
 * on the way out, so native and Java providers never share a name.
 *
 * <p>The libfabric provider always gives providers an {@code fi_context2} per operation, so FI_CONTEXT and
 * FI_CONTEXT2 are added to native hints and removed from the modes applications see; FI_ASYNC_IOV is
 * never offered because the libfabric provider reuses its native iovec arrays after each call.
 */
final class InfoMapper {
    /** Prefix of every info name the libfabric provider reports. */
    static final String PREFIX = "libfabric:";

    /**
     * Capabilities no jfabric call can use on a native provider: FI_HMEM (jfabric registers host memory only). It
     * is removed from every info, and hints asking for it match nothing.
     */
    static final long UNREACHABLE_CAPS = io.jfabric.Caps.HMEM;

    /**
     * Capabilities the bridge withholds from one native provider, though it reports them: 1.17's rxd
     * (udp;ofi_rxd) writes a message that does not fit what is left of an FI_MULTI_RECV buffer past the buffer's
     * end, into the heap (src/test/c/multi_recv_overrun.c), so the bridge offers no FI_MULTI_RECV there: the cap
     * and the rx op flag are removed from its infos and from the infos its endpoints open with, hints asking for
     * it match no rxd info, and a receive posted with the flag is refused (FI_EBADFLAGS).
     */
    static long withheldCaps(String nativeName) {
        return nativeName != null && nativeName.endsWith("ofi_rxd") ? io.jfabric.Caps.MULTI_RECV : 0;
    }

    /** Whether hints ask for a capability the bridge withholds from this native provider. */
    static boolean asksWithheld(FabricInfo hints, String nativeName) {
        return (askedCaps(hints) & withheldCaps(nativeName)) != 0;
    }

    /** Modes the libfabric provider satisfies itself. */
    static final long BRIDGE_MODES = Mode.CONTEXT | Mode.CONTEXT2;

    private InfoMapper() {
    }

    /** Whether hints ask for a capability in {@link #UNREACHABLE_CAPS}. */
    static boolean asksUnreachable(FabricInfo hints) {
        return (askedCaps(hints) & UNREACHABLE_CAPS) != 0;
    }

    private static long askedCaps(FabricInfo hints) {
        return hints.caps | (hints.txAttr == null ? 0 : hints.txAttr.caps)
                | (hints.rxAttr == null ? 0 : hints.rxAttr.caps)
                | (hints.domainAttr == null ? 0 : hints.domainAttr.caps);
    }

    // ---------------------------------------------------------------- native -> Java

    /** A jfabric info for one native {@code fi_info} (not its chain); the native memory is not kept. */
    static FabricInfo toJava(MemorySegment n) {
        FabricInfo j = new FabricInfo();
        j.fabricAttr = fabric(fi_info.fabric_attr(n));
        String nativeName = nativeName(j.fabricAttr.provName);
        long hidden = UNREACHABLE_CAPS | withheldCaps(nativeName);
        j.caps = fi_info.caps(n) & ~hidden;
        j.mode = fi_info.mode(n) & ~BRIDGE_MODES;
        j.addrFormat = enumOr(AddressFormat::of, fi_info.addr_format(n), AddressFormat.UNSPEC);
        j.srcAddr = addr(fi_info.src_addr(n), fi_info.src_addrlen(n), j.addrFormat);
        j.destAddr = addr(fi_info.dest_addr(n), fi_info.dest_addrlen(n), j.addrFormat);
        MemorySegment handle = fi_info.handle(n);
        j.handle = handle.address() == 0 ? null : new ConnectionRequest(handle.address());
        j.txAttr = tx(fi_info.tx_attr(n), hidden);
        j.rxAttr = rx(fi_info.rx_attr(n), hidden);
        j.epAttr = ep(fi_info.ep_attr(n));
        j.domainAttr = domain(fi_info.domain_attr(n));
        j.domainAttr.mrIovLimit = mrIovLimit(nativeName, j.domainAttr.mrIovLimit);
        return j;
    }

    /**
     * The mr_iov_limit the bridge offers for a native provider. 1.17's shm offers 4, but RMA into a region of several
     * buffers reaches only the first: its range check compares with the first buffer alone, and its fast path
     * writes on past that buffer into whatever memory follows it, which can abort the process
     * (known-libfabric-deviations.txt, src/test/c/regv_two_segments.c). So the bridge offers shm 1 and refuses
     * more segments itself, as it does past every native provider's limit (LibfabricDomain.registerMemory).
     */
    static long mrIovLimit(String nativeName, long nativeLimit) {
        return "shm".equals(nativeName) ? Math.min(1, nativeLimit) : nativeLimit;
    }

    private static TxAttr tx(MemorySegment n, long hidden) {
        TxAttr a = new TxAttr();
        if (n.address() == 0) {
            return a;
        }
        a.caps = fi_tx_attr.caps(n) & ~hidden;
        a.mode = fi_tx_attr.mode(n) & ~BRIDGE_MODES;
        a.opFlags = fi_tx_attr.op_flags(n);
        a.msgOrder = fi_tx_attr.msg_order(n);
        a.compOrder = fi_tx_attr.comp_order(n);
        a.injectSize = fi_tx_attr.inject_size(n);
        a.size = fi_tx_attr.size(n);
        a.iovLimit = fi_tx_attr.iov_limit(n);
        a.rmaIovLimit = fi_tx_attr.rma_iov_limit(n);
        a.tclass = fi_tx_attr.tclass(n);
        return a;
    }

    private static RxAttr rx(MemorySegment n, long hidden) {
        RxAttr a = new RxAttr();
        if (n.address() == 0) {
            return a;
        }
        a.caps = fi_rx_attr.caps(n) & ~hidden;
        a.mode = fi_rx_attr.mode(n) & ~BRIDGE_MODES;
        a.opFlags = fi_rx_attr.op_flags(n) & ~(hidden & OpFlags.MULTI_RECV);
        a.msgOrder = fi_rx_attr.msg_order(n);
        a.compOrder = fi_rx_attr.comp_order(n);
        a.totalBufferedRecv = fi_rx_attr.total_buffered_recv(n);
        a.size = fi_rx_attr.size(n);
        a.iovLimit = fi_rx_attr.iov_limit(n);
        return a;
    }

    private static EndpointAttr ep(MemorySegment n) {
        EndpointAttr a = new EndpointAttr();
        if (n.address() == 0) {
            return a;
        }
        a.type = enumOr(EndpointType::of, fi_ep_attr.type(n), EndpointType.UNSPEC);
        a.protocol = enumOr(Protocol::of, fi_ep_attr.protocol(n), Protocol.UNSPEC);
        a.protocolVersion = fi_ep_attr.protocol_version(n);
        a.maxMsgSize = fi_ep_attr.max_msg_size(n);
        a.msgPrefixSize = fi_ep_attr.msg_prefix_size(n);
        a.maxOrderRawSize = fi_ep_attr.max_order_raw_size(n);
        a.maxOrderWarSize = fi_ep_attr.max_order_war_size(n);
        a.maxOrderWawSize = fi_ep_attr.max_order_waw_size(n);
        a.memTagFormat = fi_ep_attr.mem_tag_format(n);
        a.txCtxCnt = fi_ep_attr.tx_ctx_cnt(n);
        a.rxCtxCnt = fi_ep_attr.rx_ctx_cnt(n);
        a.authKey = bytes(fi_ep_attr.auth_key(n), fi_ep_attr.auth_key_size(n));
        return a;
    }

    private static DomainAttr domain(MemorySegment n) {
        DomainAttr a = new DomainAttr();
        if (n.address() == 0) {
            return a;
        }
        a.name = string(fi_domain_attr.name(n));
        a.threading = enumOr(Threading::of, fi_domain_attr.threading(n), Threading.UNSPEC);
        a.controlProgress = enumOr(Progress::of, fi_domain_attr.control_progress(n), Progress.UNSPEC);
        a.dataProgress = enumOr(Progress::of, fi_domain_attr.data_progress(n), Progress.UNSPEC);
        a.resourceMgmt = enumOr(ResourceMgmt::of, fi_domain_attr.resource_mgmt(n), ResourceMgmt.UNSPEC);
        a.avType = enumOr(AvType::of, fi_domain_attr.av_type(n), AvType.UNSPEC);
        a.mrMode = fi_domain_attr.mr_mode(n);
        a.mrKeySize = fi_domain_attr.mr_key_size(n);
        a.cqDataSize = fi_domain_attr.cq_data_size(n);
        a.cqCnt = fi_domain_attr.cq_cnt(n);
        a.epCnt = fi_domain_attr.ep_cnt(n);
        a.txCtxCnt = fi_domain_attr.tx_ctx_cnt(n);
        a.rxCtxCnt = fi_domain_attr.rx_ctx_cnt(n);
        a.maxEpTxCtx = fi_domain_attr.max_ep_tx_ctx(n);
        a.maxEpRxCtx = fi_domain_attr.max_ep_rx_ctx(n);
        a.maxEpStxCtx = fi_domain_attr.max_ep_stx_ctx(n);
        a.maxEpSrxCtx = 0; // no fi_srx_context through the bridge yet: Domain.srxContext answers ENOSYS
        a.cntrCnt = fi_domain_attr.cntr_cnt(n);
        a.mrIovLimit = fi_domain_attr.mr_iov_limit(n);
        a.caps = fi_domain_attr.caps(n) & ~UNREACHABLE_CAPS;
        a.mode = fi_domain_attr.mode(n);
        a.authKey = bytes(fi_domain_attr.auth_key(n), fi_domain_attr.auth_key_size(n));
        a.maxErrData = fi_domain_attr.max_err_data(n);
        a.mrCnt = fi_domain_attr.mr_cnt(n);
        a.tclass = fi_domain_attr.tclass(n);
        return a;
    }

    private static FabricAttr fabric(MemorySegment n) {
        FabricAttr a = new FabricAttr();
        if (n.address() == 0) {
            return a;
        }
        a.name = string(fi_fabric_attr.name(n));
        String prov = string(fi_fabric_attr.prov_name(n));
        a.provName = prov == null ? null : PREFIX + prov;
        a.provVersion = fi_fabric_attr.prov_version(n);
        a.apiVersion = fi_fabric_attr.api_version(n);
        return a;
    }

    // ---------------------------------------------------------------- Java -> native

    /**
     * A freshly allocated native {@code fi_info} (release with {@code fi_freeinfo}) carrying every field
     * of {@code j}; pointers inside come from malloc because fi_freeinfo frees them.
     *
     * @param nativeProvName the native provider name to put in fabric_attr->prov_name, or null
     */
    static MemorySegment toNative(FabricInfo j, String nativeProvName) {
        MemorySegment n = FabricInline.fi_allocinfo();
        if (n.address() == 0) {
            throw new FabricException(Errno.ENOMEM, "fi_allocinfo failed; the process is out of native memory");
        }
        try {
            fill(n, j, nativeProvName);
            return n;
        } catch (RuntimeException e) {
            Fabric_h.fi_freeinfo(n);
            throw e;
        }
    }

    private static void fill(MemorySegment n, FabricInfo j, String nativeProvName) {
        long withheld = withheldCaps(nativeProvName);
        fi_info.caps(n, j.caps & ~withheld);
        fi_info.mode(n, (j.mode & ~Mode.ASYNC_IOV) | BRIDGE_MODES);
        fi_info.addr_format(n, j.addrFormat == null ? 0 : j.addrFormat.value());
        setAddr(n, j.srcAddr, j.addrFormat, true);
        setAddr(n, j.destAddr, j.addrFormat, false);
        if (j.handle instanceof ConnectionRequest r) {
            fi_info.handle(n, MemorySegment.ofAddress(r.fid()));
        }
        if (j.txAttr != null) {
            MemorySegment t = fi_info.tx_attr(n);
            fi_tx_attr.caps(t, j.txAttr.caps);
            fi_tx_attr.mode(t, (j.txAttr.mode & ~Mode.ASYNC_IOV) | (j.txAttr.mode == 0 ? 0 : BRIDGE_MODES));
            fi_tx_attr.op_flags(t, j.txAttr.opFlags);
            fi_tx_attr.msg_order(t, j.txAttr.msgOrder);
            fi_tx_attr.comp_order(t, j.txAttr.compOrder);
            fi_tx_attr.inject_size(t, j.txAttr.injectSize);
            fi_tx_attr.size(t, j.txAttr.size);
            fi_tx_attr.iov_limit(t, j.txAttr.iovLimit);
            fi_tx_attr.rma_iov_limit(t, j.txAttr.rmaIovLimit);
            fi_tx_attr.tclass(t, j.txAttr.tclass);
        }
        if (j.rxAttr != null) {
            MemorySegment r = fi_info.rx_attr(n);
            fi_rx_attr.caps(r, j.rxAttr.caps & ~withheld);
            fi_rx_attr.mode(r, (j.rxAttr.mode & ~Mode.ASYNC_IOV) | (j.rxAttr.mode == 0 ? 0 : BRIDGE_MODES));
            fi_rx_attr.op_flags(r, j.rxAttr.opFlags & ~(withheld & OpFlags.MULTI_RECV));
            fi_rx_attr.msg_order(r, j.rxAttr.msgOrder);
            fi_rx_attr.comp_order(r, j.rxAttr.compOrder);
            fi_rx_attr.total_buffered_recv(r, j.rxAttr.totalBufferedRecv);
            fi_rx_attr.size(r, j.rxAttr.size);
            fi_rx_attr.iov_limit(r, j.rxAttr.iovLimit);
        }
        if (j.epAttr != null) {
            MemorySegment e = fi_info.ep_attr(n);
            fi_ep_attr.type(e, j.epAttr.type.value());
            fi_ep_attr.protocol(e, j.epAttr.protocol.value());
            fi_ep_attr.protocol_version(e, j.epAttr.protocolVersion);
            fi_ep_attr.max_msg_size(e, j.epAttr.maxMsgSize);
            fi_ep_attr.msg_prefix_size(e, j.epAttr.msgPrefixSize);
            fi_ep_attr.max_order_raw_size(e, j.epAttr.maxOrderRawSize);
            fi_ep_attr.max_order_war_size(e, j.epAttr.maxOrderWarSize);
            fi_ep_attr.max_order_waw_size(e, j.epAttr.maxOrderWawSize);
            fi_ep_attr.mem_tag_format(e, j.epAttr.memTagFormat);
            fi_ep_attr.tx_ctx_cnt(e, j.epAttr.txCtxCnt);
            fi_ep_attr.rx_ctx_cnt(e, j.epAttr.rxCtxCnt);
            if (j.epAttr.authKey != null) {
                fi_ep_attr.auth_key(e, malloced(j.epAttr.authKey));
                fi_ep_attr.auth_key_size(e, j.epAttr.authKey.length);
            }
        }
        if (j.domainAttr != null) {
            MemorySegment d = fi_info.domain_attr(n);
            DomainAttr a = j.domainAttr;
            fi_domain_attr.name(d, cstring(a.name));
            fi_domain_attr.threading(d, a.threading.value());
            fi_domain_attr.control_progress(d, a.controlProgress.value());
            fi_domain_attr.data_progress(d, a.dataProgress.value());
            fi_domain_attr.resource_mgmt(d, a.resourceMgmt.value());
            fi_domain_attr.av_type(d, a.avType.value());
            fi_domain_attr.mr_mode(d, a.mrMode);
            fi_domain_attr.mr_key_size(d, a.mrKeySize);
            fi_domain_attr.cq_data_size(d, a.cqDataSize);
            fi_domain_attr.cq_cnt(d, a.cqCnt);
            fi_domain_attr.ep_cnt(d, a.epCnt);
            fi_domain_attr.tx_ctx_cnt(d, a.txCtxCnt);
            fi_domain_attr.rx_ctx_cnt(d, a.rxCtxCnt);
            fi_domain_attr.max_ep_tx_ctx(d, a.maxEpTxCtx);
            fi_domain_attr.max_ep_rx_ctx(d, a.maxEpRxCtx);
            fi_domain_attr.max_ep_stx_ctx(d, a.maxEpStxCtx);
            fi_domain_attr.max_ep_srx_ctx(d, a.maxEpSrxCtx);
            fi_domain_attr.cntr_cnt(d, a.cntrCnt);
            fi_domain_attr.mr_iov_limit(d, a.mrIovLimit);
            fi_domain_attr.caps(d, a.caps);
            fi_domain_attr.mode(d, a.mode);
            if (a.authKey != null) {
                fi_domain_attr.auth_key(d, malloced(a.authKey));
                fi_domain_attr.auth_key_size(d, a.authKey.length);
            }
            fi_domain_attr.max_err_data(d, a.maxErrData);
            fi_domain_attr.mr_cnt(d, a.mrCnt);
            fi_domain_attr.tclass(d, a.tclass);
        }
        if (j.fabricAttr != null) {
            MemorySegment f = fi_info.fabric_attr(n);
            fi_fabric_attr.name(f, cstring(j.fabricAttr.name));
            fi_fabric_attr.prov_name(f, cstring(nativeProvName));
            fi_fabric_attr.prov_version(f, j.fabricAttr.provVersion);
            fi_fabric_attr.api_version(f, j.fabricAttr.apiVersion);
        }
    }

    /** The native provider name behind a libfabric: name ("libfabric:tcp;ofi_rxm" gives "tcp;ofi_rxm"). */
    static String nativeName(String bridgeName) {
        if (bridgeName == null || bridgeName.equals("libfabric")) {
            return null;
        }
        return bridgeName.startsWith(PREFIX) ? bridgeName.substring(PREFIX.length()) : null;
    }

    // ---------------------------------------------------------------- helpers

    private static <E> E enumOr(IntFunction<E> of, int v, E fallback) {
        try {
            return of.apply(v);
        } catch (FabricException unknown) {
            // a native value jfabric has no constant for (a newer provider's protocol, say)
            return fallback;
        }
    }

    static String string(MemorySegment p) {
        return p.address() == 0 ? null : p.reinterpret(Long.MAX_VALUE).getString(0);
    }

    private static byte[] bytes(MemorySegment p, long len) {
        if (p.address() == 0 || len <= 0) {
            return null;
        }
        return p.reinterpret(len).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    private static byte[] addr(MemorySegment p, long len, AddressFormat format) {
        byte[] b = bytes(p, len);
        if (b != null && format == AddressFormat.ADDR_STR) {
            int end = 0;
            while (end < b.length && b[end] != 0) {
                end++;
            }
            b = java.util.Arrays.copyOf(b, end);
        }
        return b;
    }

    private static void setAddr(MemorySegment n, byte[] a, AddressFormat format, boolean src) {
        if (a == null) {
            return;
        }
        byte[] c = format == AddressFormat.ADDR_STR ? java.util.Arrays.copyOf(a, a.length + 1) : a;
        MemorySegment m = malloced(c);
        if (src) {
            fi_info.src_addr(n, m);
            fi_info.src_addrlen(n, c.length);
        } else {
            fi_info.dest_addr(n, m);
            fi_info.dest_addrlen(n, c.length);
        }
    }

    private static MemorySegment malloced(byte[] b) {
        MemorySegment m = LibC.malloc(Math.max(1, b.length));
        if (m.address() == 0) {
            throw new FabricException(Errno.ENOMEM, "malloc failed; the process is out of native memory");
        }
        MemorySegment.copy(MemorySegment.ofArray(b), 0, m, 0, b.length);
        return m;
    }

    private static MemorySegment cstring(String s) {
        if (s == null) {
            return MemorySegment.NULL;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return malloced(java.util.Arrays.copyOf(b, b.length + 1));
    }

    /** The connection request behind a CONNREQ's info ({@code fi_info.handle}), to accept or reject. */
    record ConnectionRequest(long fid) {
    }
}
