package io.jfabric.testprov;

import io.jfabric.AddressFormat;
import io.jfabric.AvType;
import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MrMode;
import io.jfabric.MsgOrder;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.ResourceMgmt;
import io.jfabric.Threading;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Provider templates with libfabric 1.17's attribute values for tcp, shm and tcp;ofi_rxm, as
 * `fi_info -v` prints them on this machine (libfabric-notes §1.3 and the golden files beside the
 * tests). Test scope only: they let discovery be tested before the real providers land.
 */
public final class MimicInfos {
    public static final int PROV_VERSION = Fabrics.version(117, 0);
    public static final long SIZE_MAX = -1L;
    /** 1.17's FI_ORDER_RMA_* and FI_ORDER_ATOMIC_* bits. */
    public static final long RMA_RAR = 1L << 32, RMA_RAW = 1L << 33, RMA_WAR = 1L << 34, RMA_WAW = 1L << 35;
    public static final long ATOMIC_RAR = 1L << 36, ATOMIC_RAW = 1L << 37, ATOMIC_WAR = 1L << 38, ATOMIC_WAW = 1L << 39;
    /** The order tcp and rxm report (no WAR, SAR). */
    public static final long TCP_ORDER = MsgOrder.RAR | MsgOrder.RAW | MsgOrder.RAS | MsgOrder.WAW | MsgOrder.WAS
            | MsgOrder.SAW | MsgOrder.SAS | RMA_RAR | RMA_RAW | RMA_WAW | ATOMIC_RAR | ATOMIC_RAW | ATOMIC_WAW;
    public static final long FULL_ORDER = MsgOrder.STRICT | RMA_RAR | RMA_RAW | RMA_WAR | RMA_WAW | ATOMIC_RAR
            | ATOMIC_RAW | ATOMIC_WAR | ATOMIC_WAW;

    private MimicInfos() {
    }

    /** One interface of this mimic machine: eth0 192.0.2.2, lo 127.0.0.1, lo ::1. */
    public record Iface(String domain, String fabric, AddressFormat format, byte[] addr) {
    }

    public static List<Iface> interfaces() {
        return List.of(
                new Iface("eth0", "192.0.2.0/24", AddressFormat.SOCKADDR_IN, sin(192, 0, 2, 2)),
                new Iface("lo", "127.0.0.1/32", AddressFormat.SOCKADDR_IN, sin(127, 0, 0, 1)),
                new Iface("lo", "::1/128", AddressFormat.SOCKADDR_IN6, sin6Loopback()));
    }

    static byte[] sin(int a, int b, int c, int d) {
        byte[] s = new byte[16];
        s[0] = 2; // AF_INET, host order
        s[4] = (byte) a;
        s[5] = (byte) b;
        s[6] = (byte) c;
        s[7] = (byte) d;
        return s;
    }

    static byte[] sin6Loopback() {
        byte[] s = new byte[28];
        s[0] = 10; // AF_INET6
        s[23] = 1;
        return s;
    }

    /** tcp's MSG info on one interface, before hint matching (legacy mr_mode bits as the C template). */
    public static FabricInfo tcpMsg(Iface i) {
        FabricInfo f = new FabricInfo();
        f.caps = Caps.MSG | Caps.RMA | Caps.READ | Caps.WRITE | Caps.RECV | Caps.SEND | Caps.REMOTE_READ
                | Caps.REMOTE_WRITE | Caps.RMA_PMEM | Caps.LOCAL_COMM | Caps.REMOTE_COMM | Caps.RMA_EVENT;
        f.addrFormat = i.format();
        f.srcAddr = i.addr().clone();
        f.txAttr.caps = Caps.MSG | Caps.RMA | Caps.READ | Caps.WRITE | Caps.SEND | Caps.RMA_PMEM;
        f.txAttr.msgOrder = TCP_ORDER;
        f.txAttr.compOrder = MsgOrder.STRICT;
        f.txAttr.injectSize = 128;
        f.txAttr.size = 256;
        f.txAttr.iovLimit = 4;
        f.txAttr.rmaIovLimit = 4;
        f.rxAttr.caps = Caps.MSG | Caps.RMA | Caps.RECV | Caps.REMOTE_READ | Caps.REMOTE_WRITE | Caps.RMA_PMEM
                | Caps.RMA_EVENT;
        f.rxAttr.msgOrder = TCP_ORDER;
        f.rxAttr.compOrder = MsgOrder.STRICT;
        f.rxAttr.size = 256;
        f.rxAttr.iovLimit = 4;
        f.epAttr.type = EndpointType.MSG;
        f.epAttr.protocol = Protocol.SOCK_TCP;
        f.epAttr.maxMsgSize = SIZE_MAX;
        f.epAttr.maxOrderRawSize = SIZE_MAX;
        f.epAttr.maxOrderWawSize = SIZE_MAX;
        f.epAttr.txCtxCnt = 1;
        f.epAttr.rxCtxCnt = 1;
        var d = f.domainAttr;
        d.name = i.domain();
        d.threading = Threading.SAFE;
        d.controlProgress = Progress.AUTO;
        d.dataProgress = Progress.AUTO;
        d.resourceMgmt = ResourceMgmt.ENABLED;
        d.avType = AvType.UNSPEC;
        d.mrMode = MrMode.BASIC | MrMode.SCALABLE;
        d.mrKeySize = 8;
        d.cqDataSize = 8;
        d.cqCnt = 256;
        d.epCnt = 8192;
        d.txCtxCnt = 8192;
        d.rxCtxCnt = 8192;
        d.maxEpTxCtx = 1;
        d.maxEpRxCtx = 1;
        d.maxEpSrxCtx = 8192;
        d.mrIovLimit = 1;
        d.caps = Caps.LOCAL_COMM | Caps.REMOTE_COMM;
        f.fabricAttr.name = i.fabric();
        f.fabricAttr.provName = "tcp";
        f.fabricAttr.provVersion = PROV_VERSION;
        return f;
    }

    /** shm's RDM info, before hint matching. */
    public static FabricInfo shm(String address) {
        FabricInfo f = new FabricInfo();
        f.caps = Caps.MSG | Caps.RMA | Caps.TAGGED | Caps.ATOMIC | Caps.READ | Caps.WRITE | Caps.RECV | Caps.SEND
                | Caps.REMOTE_READ | Caps.REMOTE_WRITE | Caps.MULTI_RECV | Caps.RMA_EVENT | Caps.SOURCE
                | Caps.DIRECTED_RECV;
        f.addrFormat = AddressFormat.ADDR_STR;
        f.srcAddr = address.getBytes(StandardCharsets.US_ASCII);
        f.destAddr = address.getBytes(StandardCharsets.US_ASCII);
        f.txAttr.caps = Caps.MSG | Caps.RMA | Caps.TAGGED | Caps.ATOMIC | Caps.READ | Caps.WRITE | Caps.SEND;
        f.txAttr.msgOrder = FULL_ORDER;
        f.txAttr.injectSize = 4096;
        f.txAttr.size = 1024;
        f.txAttr.iovLimit = 4;
        f.txAttr.rmaIovLimit = 4;
        f.rxAttr.caps = Caps.MSG | Caps.RMA | Caps.TAGGED | Caps.ATOMIC | Caps.RECV | Caps.REMOTE_READ
                | Caps.REMOTE_WRITE | Caps.MULTI_RECV | Caps.RMA_EVENT | Caps.SOURCE | Caps.DIRECTED_RECV;
        f.rxAttr.msgOrder = FULL_ORDER;
        f.rxAttr.compOrder = MsgOrder.STRICT;
        f.rxAttr.size = 1024;
        f.rxAttr.iovLimit = 4;
        f.epAttr.type = EndpointType.RDM;
        f.epAttr.protocol = Protocol.SHM;
        f.epAttr.protocolVersion = 1;
        f.epAttr.maxMsgSize = SIZE_MAX;
        f.epAttr.maxOrderRawSize = SIZE_MAX;
        f.epAttr.maxOrderWawSize = SIZE_MAX;
        f.epAttr.maxOrderWarSize = SIZE_MAX;
        f.epAttr.memTagFormat = 0xaaaaaaaaaaaaaaaaL;
        f.epAttr.txCtxCnt = 1;
        f.epAttr.rxCtxCnt = 1;
        var d = f.domainAttr;
        d.name = "shm";
        d.threading = Threading.SAFE;
        d.controlProgress = Progress.AUTO;
        d.dataProgress = Progress.MANUAL;
        d.resourceMgmt = ResourceMgmt.ENABLED;
        d.mrMode = MrMode.BASIC | MrMode.SCALABLE;
        d.mrKeySize = 8;
        d.cqDataSize = 8;
        d.cqCnt = 1024;
        d.epCnt = 256;
        d.txCtxCnt = 1024;
        d.rxCtxCnt = 1024;
        d.maxEpTxCtx = 1;
        d.maxEpRxCtx = 1;
        d.mrIovLimit = 4;
        f.fabricAttr.name = "shm";
        f.fabricAttr.provName = "shm";
        f.fabricAttr.provVersion = PROV_VERSION;
        return f;
    }

    /** ofi_rxm's RDM info over one tcp MSG info (rxm_info_to_util's values over tcp). */
    public static FabricInfo rxmOver(FabricInfo core) {
        FabricInfo f = new FabricInfo();
        f.caps = Caps.MSG | Caps.RMA | Caps.TAGGED | Caps.READ | Caps.WRITE | Caps.RECV | Caps.SEND
                | Caps.REMOTE_READ | Caps.REMOTE_WRITE | Caps.MULTI_RECV | Caps.LOCAL_COMM | Caps.REMOTE_COMM;
        f.txAttr.caps = Caps.MSG | Caps.RMA | Caps.TAGGED | Caps.READ | Caps.WRITE | Caps.SEND;
        f.txAttr.msgOrder = TCP_ORDER;
        f.txAttr.injectSize = 64;
        f.txAttr.size = 2048;
        f.txAttr.iovLimit = 4;
        f.txAttr.rmaIovLimit = 4;
        f.rxAttr.caps = Caps.MSG | Caps.RMA | Caps.TAGGED | Caps.RECV | Caps.REMOTE_READ | Caps.REMOTE_WRITE
                | Caps.MULTI_RECV;
        f.rxAttr.msgOrder = TCP_ORDER;
        f.rxAttr.size = 2048;
        f.rxAttr.iovLimit = 4;
        f.epAttr.type = EndpointType.RDM;
        f.epAttr.protocol = Protocol.RXM;
        f.epAttr.protocolVersion = 1;
        f.epAttr.maxMsgSize = SIZE_MAX;
        f.epAttr.maxOrderRawSize = SIZE_MAX;
        f.epAttr.maxOrderWawSize = SIZE_MAX;
        f.epAttr.memTagFormat = 0xaaaaaaaaaaaaaaaaL;
        f.epAttr.txCtxCnt = 1;
        f.epAttr.rxCtxCnt = 1;
        var d = f.domainAttr;
        d.threading = Threading.SAFE;
        d.controlProgress = Progress.AUTO;
        d.dataProgress = Progress.MANUAL;
        d.resourceMgmt = ResourceMgmt.ENABLED;
        d.mrMode = MrMode.BASIC | MrMode.SCALABLE;
        d.mrKeySize = 8;
        d.cqDataSize = 8;
        d.cqCnt = 65536;
        d.epCnt = 32768;
        d.txCtxCnt = 1;
        d.rxCtxCnt = 1;
        d.maxEpTxCtx = 1;
        d.maxEpRxCtx = 1;
        d.mrIovLimit = 1;
        d.caps = Caps.LOCAL_COMM | Caps.REMOTE_COMM;
        return f;
    }
}
