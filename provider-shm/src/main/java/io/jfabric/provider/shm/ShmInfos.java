package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.RegionLayout;

import io.jfabric.AddressFormat;
import io.jfabric.AvType;
import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MrMode;
import io.jfabric.MsgOrder;
import io.jfabric.OpFlags;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.ResourceMgmt;
import io.jfabric.Threading;
import io.jfabric.util.MrMap;

/**
 * The info template shm offers before hint matching. Attribute values follow libfabric 1.17's shm
 * where jfabric behaves the same; differences: MR mode FI_MR_VIRT_ADDR only when asked (offsets otherwise), and
 * no src_addr until an endpoint is opened (each endpoint names its own region).
 */
final class ShmInfos {

    static final long CAPS = Caps.MSG | Caps.TAGGED | Caps.RMA | Caps.ATOMIC | Caps.READ | Caps.WRITE | Caps.RECV
            | Caps.SEND | Caps.REMOTE_READ | Caps.REMOTE_WRITE | Caps.SOURCE | Caps.DIRECTED_RECV | Caps.MULTI_RECV
            | Caps.RMA_EVENT;
    static final long TX_CAPS = Caps.MSG | Caps.TAGGED | Caps.RMA | Caps.ATOMIC | Caps.READ | Caps.WRITE | Caps.SEND;
    static final long RX_CAPS = Caps.MSG | Caps.TAGGED | Caps.RMA | Caps.ATOMIC | Caps.RECV | Caps.REMOTE_READ
            | Caps.REMOTE_WRITE | Caps.SOURCE | Caps.DIRECTED_RECV | Caps.MULTI_RECV | Caps.RMA_EVENT;
    /**
     * The completion levels shm honours: a send that reports a completion does so once the peer has taken
     * the message off its ring into a receive buffer or its unexpected queue (CMA and pulled messages once
     * they are copied, on the peer's ACK), which is inject, transmit and delivery complete at once.
     */
    static final long TX_LEVELS = OpFlags.INJECT_COMPLETE | OpFlags.TRANSMIT_COMPLETE | OpFlags.DELIVERY_COMPLETE;
    /** tx_attr.op_flags: libfabric shm's set (smr_attr.c). */
    static final long TX_OP_FLAGS = OpFlags.COMPLETION | TX_LEVELS;
    /** rx_attr.op_flags: libfabric shm's set. */
    static final long RX_OP_FLAGS = OpFlags.COMPLETION | OpFlags.MULTI_RECV;
    static final int VERSION = Fabrics.version(0, 1);

    private ShmInfos() {
    }

    /**
     * FI_SOURCE_ERR is offered only to hints that ask for it: as a secondary cap it would otherwise come back
     * for every endpoint and turn unknown senders' messages into errors for applications that never asked.
     */
    static void offerSourceErr(FabricInfo template, FabricInfo hints) {
        if (hints != null && ((hints.caps | (hints.rxAttr == null ? 0 : hints.rxAttr.caps)) & Caps.SOURCE_ERR) != 0) {
            template.caps |= Caps.SOURCE_ERR;
            template.rxAttr.caps |= Caps.SOURCE_ERR;
        }
    }

    static FabricInfo template(long injectSize) {
        FabricInfo f = new FabricInfo();
        f.caps = CAPS;
        f.addrFormat = AddressFormat.ADDR_STR;
        f.txAttr.caps = TX_CAPS;
        f.txAttr.opFlags = TX_OP_FLAGS;
        f.txAttr.msgOrder = MsgOrder.SAS;
        f.txAttr.compOrder = MsgOrder.NONE;
        f.txAttr.injectSize = injectSize;
        f.txAttr.size = 1024;
        f.txAttr.iovLimit = ShmIov.LIMIT;
        f.txAttr.rmaIovLimit = ShmRmaVector.LIMIT;
        f.rxAttr.caps = RX_CAPS;
        f.rxAttr.opFlags = RX_OP_FLAGS;
        f.rxAttr.msgOrder = MsgOrder.SAS;
        f.rxAttr.compOrder = MsgOrder.STRICT;
        f.rxAttr.size = 1024;
        f.rxAttr.iovLimit = ShmIov.LIMIT;
        f.epAttr.type = EndpointType.RDM;
        f.epAttr.protocol = Protocol.SHM;
        f.epAttr.protocolVersion = RegionLayout.VERSION;
        f.epAttr.maxMsgSize = Integer.MAX_VALUE;
        f.epAttr.memTagFormat = 0xaaaaaaaaaaaaaaaaL;
        f.epAttr.txCtxCnt = 1;
        f.epAttr.rxCtxCnt = 1;
        var d = f.domainAttr;
        d.name = "shm";
        d.threading = Threading.SAFE; // hints asking a narrower level get it, and no lock on the data path
        d.controlProgress = Progress.MANUAL;
        d.dataProgress = Progress.MANUAL;
        d.resourceMgmt = ResourceMgmt.ENABLED;
        d.avType = AvType.TABLE;
        d.mrMode = MrMode.VIRT_ADDR;
        d.mrKeySize = 8;
        d.cqDataSize = 8;
        d.cqCnt = 1024;
        d.epCnt = 256;
        d.txCtxCnt = 1024;
        d.rxCtxCnt = 1024;
        d.maxEpTxCtx = 1;
        d.maxEpRxCtx = 1;
        d.maxEpSrxCtx = 1; // fi_srx_context: rx_ctx_cnt FI_SHARED_CONTEXT (ShmSharedRx)
        d.mrIovLimit = MrMap.IOV_LIMIT;
        f.fabricAttr.name = "shm";
        f.fabricAttr.provName = "shm";
        f.fabricAttr.provVersion = VERSION;
        return f;
    }
}
