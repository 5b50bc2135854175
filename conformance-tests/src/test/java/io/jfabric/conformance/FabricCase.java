package io.jfabric.conformance;

import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.MrMode;

/**
 * One configuration the suite runs against: a provider and endpoint type, with the info discovery returned
 * for it. The id ("tcp/FI_EP_MSG") is stable across processes, so a peer JVM finds the same case again.
 */
public record FabricCase(String id, FabricInfo info) {

    public String provider() {
        return info.providerName();
    }

    public EndpointType epType() {
        return info.epAttr.type;
    }

    public boolean isMsg() {
        return epType() == EndpointType.MSG;
    }

    /** RDM and DGRAM endpoints address peers through an AV. */
    public boolean isConnectionless() {
        return epType() == EndpointType.RDM || epType() == EndpointType.DGRAM;
    }

    public boolean hasCaps(long caps) {
        return (info.caps & caps) == caps;
    }

    /** Whether buffers of local operations need a registration as their descriptor (FI_MR_LOCAL). */
    public boolean needsLocalMr() {
        return (info.domainAttr.mrMode & MrMode.LOCAL) != 0;
    }

    /**
     * A size_t attribute read as Java's signed long: libfabric's SIZE_MAX ("no limit") arrives as -1, so
     * every negative value means unbounded.
     */
    static long unsigned(long sizeT) {
        return sizeT < 0 ? Long.MAX_VALUE : sizeT;
    }

    public long maxMsgSize() {
        return unsigned(info.epAttr.maxMsgSize);
    }

    public long injectSize() {
        return unsigned(info.txAttr.injectSize);
    }

    /**
     * A private copy of the info to open objects with; tests may alter it. Default op_flags that change what
     * a plain call means are taken out: fi_getinfo with null hints returns a provider's whole op_flags set
     * there (libfabric 1.17's rxd reports FI_INJECT | FI_*_COMPLETE for transmits, shm and rxd FI_MULTI_RECV
     * for receives), which would make every fi_send an inject send and every fi_recv a multi-receive buffer
     * (fi_endpoint(3): op_flags are the defaults of the calls without a flags argument). The suite tests
     * plain sends and receives; inject and multi-receive are asked for explicitly where tested. The completion
     * levels above inject complete go too: as defaults they would send every message of tcp with an ACK and
     * of rxm by rendezvous; CompletionLevelTest asks for each level itself.
     */
    public FabricInfo freshInfo() {
        FabricInfo copy = info.copy();
        if (copy.txAttr != null) {
            copy.txAttr.opFlags &= ~(io.jfabric.OpFlags.INJECT | io.jfabric.OpFlags.TRANSMIT_COMPLETE
                    | io.jfabric.OpFlags.DELIVERY_COMPLETE | io.jfabric.OpFlags.COMMIT_COMPLETE
                    | io.jfabric.OpFlags.MATCH_COMPLETE);
        }
        if (copy.rxAttr != null) {
            copy.rxAttr.opFlags &= ~io.jfabric.OpFlags.MULTI_RECV;
        }
        return copy;
    }

    @Override
    public String toString() {
        return id;
    }
}
