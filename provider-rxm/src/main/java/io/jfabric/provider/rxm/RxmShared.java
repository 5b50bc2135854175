package io.jfabric.provider.rxm;

import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.EqAttr;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.MrMode;
import io.jfabric.PassiveEndpoint;
import io.jfabric.provider.rxm.wire.RxmPacket;
import io.jfabric.util.EndpointBindings;
import io.jfabric.util.FabricLog;
import io.jfabric.util.ProgressHook;
import io.jfabric.util.Waitable;

import java.util.concurrent.locks.Lock;

/**
 * What every part of one rxm endpoint shares (libfabric's {@code struct rxm_ep}): the settings fixed at
 * open, the core EQ, CQ and passive endpoint, the bindings, and the parts themselves. Each part gets this
 * object through its constructor and reaches the others through its final fields, so the parts hold no
 * statics and the per-message path reads one field more than a single class would.
 *
 * <p>Every data-path call runs under {@link #lock} (the domain's), so the mutable fields here need no
 * further synchronization.
 */
final class RxmShared {
    private static final System.Logger LOG = FabricLog.logger("ofi_rxm");
    final RxmDomain domain;
    /** The application's info, copied at open. */
    final FabricInfo info;
    final RxmParams params;
    /** The domain's lock: every data-path call and every progress pass holds it. */
    final Lock lock;
    final long caps;
    /** FI_SOURCE with FI_SOURCE_ERR: a message from a sender not in the AV completes as an EADDRNOTAVAIL error. */
    final boolean sourceErr;
    /** The CQs and counters bound, and the reporting through them. */
    final EndpointBindings bindings = new EndpointBindings("ofi_rxm endpoint");

    // ---- settings fixed at open
    final boolean dynRbuf;
    final long eagerLimit;
    final long bufferSize;
    final ProtocolSelector selector;
    final boolean directSend;
    final boolean coreVirtAddr;
    final int coreIovLimit;
    final long coreInjectSize;
    final long injectSize;
    final boolean rndvWrite;
    final long cmIntervalNanos;
    /** The most receive buffers of each kind one connection keeps posted (msg_rx_size, bounded). */
    final int rxTarget;
    /** What a new connection starts with: {@link RxmRxBuffers#RX_INITIAL} over a TCP core, {@link #rxTarget} otherwise. */
    final int rxInitial;
    /**
     * Whether the core needs a registration for every local buffer (FI_MR_LOCAL, verbs): then each bounce
     * buffer is registered once when the pool creates it and passed as the core desc, as libfabric's rxm
     * registers its buffer pools.
     */
    final boolean coreMrLocal;

    // ---- core objects
    final EventQueue coreEq;
    final CompletionQueue coreCq;
    final PassiveEndpoint pep;
    final byte[] localAddr;
    /** The core CQ's and EQ's progress hooks (NONE for a core queue that is not provider-util's). */
    final ProgressHook[] coreWaits;

    // ---- state that changes after open (under the lock)
    RxmAv av;
    /** The application's endpoint: the fid of the EQ events it raises (FI_JF_PEER_FAILED). */
    Object endpoint;
    boolean enabled;
    boolean closed;

    // ---- the parts
    final RxmPools pools;
    final RxmCm cm;
    final RxmRxBuffers rxBuffers;
    final RxmRecv recv;
    final RxmTransmit transmit;
    final RxmEager eager;
    final RxmSar sar;
    final RxmRendezvous rndv;
    /** Rendezvous data copied straight from jfabric peers on this host; null where that does not apply. */
    final RxmSameHost sameHost;
    /** FI_OFI_RXM_COALESCE_SENDS as this endpoint opened. */
    final boolean coalesceSends = RxmParams.coalesceSends();
    final RxmAtomic atomic;
    final RxmProgress progress;

    RxmShared(RxmDomain domain, FabricInfo info) {
        this.domain = domain;
        this.info = info.copy();
        this.params = domain.fabric().params;
        this.lock = domain.lock;
        this.caps = info.caps == 0 ? RxmProvider.CAPS : info.caps;
        this.sourceErr = (caps & (Caps.SOURCE | Caps.SOURCE_ERR)) == (Caps.SOURCE | Caps.SOURCE_ERR);

        FabricInfo core = domain.coreInfo;
        dynRbuf = params.enableDynRbuf() && domain.coreTagged;
        bufferSize = params.bufferSize();
        eagerLimit = params.eagerLimit(dynRbuf);
        rndvWrite = params.useRndvWrite();
        coreIovLimit = core.txAttr == null || core.txAttr.iovLimit == 0 ? 4 : (int) core.txAttr.iovLimit;
        coreInjectSize = core.txAttr == null ? 0 : core.txAttr.injectSize;
        injectSize = info.txAttr == null || info.txAttr.injectSize == 0
                ? (coreInjectSize > RxmPacket.SIZE ? coreInjectSize - RxmPacket.SIZE : Math.max(0, coreInjectSize))
                : info.txAttr.injectSize;
        int mr = core.domainAttr == null ? 0 : core.domainAttr.mrMode;
        coreVirtAddr = mr == MrMode.BASIC || (mr & MrMode.VIRT_ADDR) != 0;
        directSend = params.enableDirectSend() && (mr & MrMode.LOCAL) == 0;
        coreMrLocal = (mr & MrMode.LOCAL) != 0;
        selector = new ProtocolSelector(bufferSize, eagerLimit, params.sarLimit(dynRbuf), dynRbuf, rndvWrite,
                coreIovLimit);
        cmIntervalNanos = Math.max(0, params.cmProgressInterval()) * 1000L;
        rxTarget = (int) Math.max(4, Math.min(params.msgRxSize(), 4096));
        // growing the posted buffers on demand relies on the core holding what arrives while none is posted (a
        // TCP socket does); over verbs a missing receive is an RNR NAK and a retry timer per message, so a
        // connection there posts its whole msg_rx_size at once, as libfabric's rxm does
        boolean coreBuffers = core.epAttr != null && core.epAttr.protocol == io.jfabric.Protocol.SOCK_TCP;
        rxInitial = coreBuffers ? Math.min(RxmRxBuffers.RX_INITIAL, rxTarget) : rxTarget;

        EventQueue eq = null;
        CompletionQueue cq = null;
        PassiveEndpoint p = null;
        try {
            // one CONNREQ or CONNECTED per peer may be queued at once: room for a crowd (the queue holds only
            // what is queued, so the size costs nothing until used)
            EqAttr eqAttr = EqAttr.defaults();
            eqAttr.size = 16384; // connection events of this many peers may wait for rxm to read them
            eq = domain.fabric().core.openEq(eqAttr);
            cq = domain.core.openCq(CqAttr.of(CqFormat.TAGGED, 16384));
            FabricInfo pepInfo = core.copy();
            if (info.srcAddr != null) {
                pepInfo.srcAddr = info.srcAddr.clone();
            }
            pepInfo.destAddr = null;
            p = domain.fabric().core.openPassiveEndpoint(pepInfo);
            p.bind(eq);
            p.listen();
            if (p.cmDataSize() < 24) {
                throw new FabricException(Errno.EOPNOTSUPP, "core provider " + core.providerName()
                        + " carries only " + p.cmDataSize() + " bytes of CM data; ofi_rxm needs 24");
            }
        } catch (RuntimeException e) {
            closeQuietly(p);
            closeQuietly(cq);
            closeQuietly(eq);
            throw e;
        }
        coreEq = eq;
        coreCq = cq;
        pep = p;
        localAddr = pep.getName();
        coreWaits = new ProgressHook[] {hookOf(cq), hookOf(eq)};

        sameHost = RxmSameHost.open(coreBuffers);
        pools = new RxmPools(this);
        cm = new RxmCm(this);
        rxBuffers = new RxmRxBuffers(this);
        recv = new RxmRecv(this);
        transmit = new RxmTransmit(this);
        eager = new RxmEager(this);
        sar = new RxmSar(this);
        rndv = new RxmRendezvous(this);
        atomic = new RxmAtomic(this);
        progress = new RxmProgress(this);
    }

    /** Source filtering of receives applies only with FI_DIRECTED_RECV. */
    boolean directedRecv() {
        return (caps & Caps.DIRECTED_RECV) != 0;
    }

    /** Whether the core CQ or EQ holds entries now (without driving progress). */
    boolean coreHasEvents() {
        return coreCq instanceof Waitable c && c.hasEvents() || coreEq instanceof Waitable e && e.hasEvents();
    }

    private static ProgressHook hookOf(Object coreQueue) {
        return coreQueue instanceof Waitable w ? w.progressHook() : ProgressHook.NONE;
    }

    static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.log(System.Logger.Level.DEBUG, "close: {0}", e.getMessage());
        }
    }
}
