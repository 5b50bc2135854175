package io.jfabric.provider.rxm;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.ProviderParameter;

import java.util.List;

/**
 * ofi_rxm's tunables, with libfabric 1.17's names, defaults and meaning (prov/rxm/src/rxm_init.c), read
 * once from {@code FI_OFI_RXM_<NAME>} or {@code -Djfabric.ofi_rxm.<name>}. The derived limits follow
 * {@code rxm_ep_init_proto}: eager_limit is at least buffer_size; SAR is off (sar_limit = eager_limit) when
 * dynamic receive buffering is in use or eager_limit exceeds the 16-bit segment size; otherwise sar_limit
 * defaults to 8 x eager_limit. {@code sarLimitParam} is -1 when FI_OFI_RXM_SAR_LIMIT is not set.
 */
public record RxmParams(long bufferSize, long eagerLimitParam, long sarLimitParam, long txSize, long rxSize,
                        long msgTxSize, long msgRxSize, int cmProgressInterval, int cqEqFairness,
                        int compPerProgress, boolean useRndvWrite, boolean enableDynRbuf,
                        boolean enableDirectSend, boolean dataAutoProgress, long unexpectedLimit) {

    public static final String PROVIDER = "ofi_rxm";
    /** Smallest buffer that still carries a rendezvous header (sizeof(struct rxm_rndv_hdr)). */
    public static final long MIN_BUFFER_SIZE = 104;

    public static final ProviderParameter BUFFER_SIZE = p("buffer_size", "size_t", "16384",
            "Size of the bounce buffers, including those posted at the receive side for unexpected messages; "
                    + "also the eager message size. Both peers must use the same value.");
    public static final ProviderParameter EAGER_LIMIT = p("eager_limit", "size_t", "16384",
            "Largest transfer sent with the eager protocol; raised to buffer_size if smaller. Only takes effect "
                    + "with dynamic receive buffers and direct send, as in libfabric.");
    public static final ProviderParameter SAR_LIMIT = p("sar_limit", "size_t", "131072",
            "Largest transfer sent with segmentation and reassembly (default 8 x eager limit); must exceed the "
                    + "eager limit to take effect. SAR is off while dynamic receive buffers are in use.");
    public static final ProviderParameter TX_SIZE = p("tx_size", "size_t", "2048",
            "Default tx context size of the RDM endpoint.");
    public static final ProviderParameter RX_SIZE = p("rx_size", "size_t", "2048",
            "Default rx context size of the RDM endpoint.");
    public static final ProviderParameter MSG_TX_SIZE = p("msg_tx_size", "size_t", "128",
            "tx size requested of each core FI_EP_MSG endpoint.");
    public static final ProviderParameter MSG_RX_SIZE = p("msg_rx_size", "size_t", "128",
            "rx size requested of each core FI_EP_MSG endpoint (receive buffers posted per connection).");
    public static final ProviderParameter CM_PROGRESS_INTERVAL = p("cm_progress_interval", "int", "10000",
            "Microseconds between connection-management progress calls during CQ reads (every call while a "
                    + "connection is being set up).");
    public static final ProviderParameter CQ_EQ_FAIRNESS = p("cq_eq_fairness", "int", "128",
            "Core CQ entries read across progress calls before the CM progress interval is checked.");
    public static final ProviderParameter COMP_PER_PROGRESS = p("comp_per_progress", "int", "1",
            "Core CQ entries read per progress call (RDM CQ read).");
    public static final ProviderParameter USE_RNDV_WRITE = p("use_rndv_write", "bool", "0",
            "Use RMA writes instead of RMA reads for the rendezvous protocol.");
    public static final ProviderParameter ENABLE_DYN_RBUF = p("enable_dyn_rbuf", "bool", "1",
            "Dynamic receive buffering: small tagged messages go as core tagged messages without rxm's header "
                    + "(libfabric 1.13-1.17 over tcp) and SAR is off. Set 0 to talk to libfabric >= 1.18 peers.");
    public static final ProviderParameter ENABLE_DIRECT_SEND = p("enable_direct_send", "bool", "1",
            "Pass application buffers to the core with the header as a separate iov instead of copying into "
                    + "a bounce buffer, when the core needs no FI_MR_LOCAL.");
    public static final ProviderParameter DATA_AUTO_PROGRESS = p("data_auto_progress", "bool", "0",
            "Force auto progress for data transfers even if the application asked for manual progress.");
    public static final ProviderParameter UNEXPECTED_LIMIT = p("unexpected_limit", "size_t", "1024",
            "jfabric only: unexpected messages buffered per endpoint before receive buffers stop being "
                    + "reposted, which pushes back on senders through the core's flow control.");

    public static final ProviderParameter USE_SRX = p("use_srx", "bool", "1",
            "Post the receive buffers to one shared receive context of the core (verbs: an SRQ) instead of to every "
                    + "connection: msg_rx_size buffers per endpoint rather than per peer. jfabric uses one wherever "
                    + "the core offers it (verbs); libfabric's default for verbs is 0. Not with enable_dyn_rbuf over "
                    + "a tagged core.");

    public static final ProviderParameter SAME_HOST_COPY = p("same_host_copy", "bool", "1",
            "jfabric only: over a TCP core, a read rendezvous from a jfabric peer in another process of this host "
                    + "and user is copied straight out of the sender's memory with process_vm_readv (one copy) "
                    + "instead of read through the core's sockets. Peers prove they can be reached that way when "
                    + "they connect; libfabric peers never take part.");

    public static final ProviderParameter COALESCE_SENDS = p("coalesce_sends", "bool", "1",
            "jfabric only: over a TCP core, an eager send, RMA read or RMA write posted after another with no "
                    + "progress call between them goes to the core with FI_MORE, so a burst leaves in one write at "
                    + "the next progress call while its first post leaves at once; rxm's own protocol messages "
                    + "are always written at once.");

    public static final List<ProviderParameter> ALL = List.of(BUFFER_SIZE, EAGER_LIMIT, SAR_LIMIT, TX_SIZE, RX_SIZE,
            MSG_TX_SIZE, MSG_RX_SIZE, CM_PROGRESS_INTERVAL, CQ_EQ_FAIRNESS, COMP_PER_PROGRESS, USE_RNDV_WRITE,
            ENABLE_DYN_RBUF, ENABLE_DIRECT_SEND, DATA_AUTO_PROGRESS, UNEXPECTED_LIMIT, USE_SRX, SAME_HOST_COPY,
            COALESCE_SENDS);

    /** FI_OFI_RXM_USE_SRX: a core shared receive context per endpoint ({@link CoreSrx}), read when one opens. */
    static boolean useSrx() {
        return bool(USE_SRX);
    }

    /** FI_OFI_RXM_SAME_HOST_COPY ({@link RxmSameHost}), read when an endpoint opens. */
    static boolean sameHostCopy() {
        return bool(SAME_HOST_COPY);
    }

    /** FI_OFI_RXM_COALESCE_SENDS, read when an endpoint opens. */
    static boolean coalesceSends() {
        return bool(COALESCE_SENDS);
    }

    private static ProviderParameter p(String name, String type, String def, String help) {
        return new ProviderParameter(PROVIDER, name, type, def, help);
    }

    /** Reads every parameter from the environment and system properties. */
    public static RxmParams fromEnvironment() {
        long buf = Math.min(Math.max(size(BUFFER_SIZE), MIN_BUFFER_SIZE), Integer.MAX_VALUE);
        return new RxmParams(buf, size(EAGER_LIMIT), isSet(SAR_LIMIT) ? size(SAR_LIMIT) : -1, size(TX_SIZE), size(RX_SIZE), size(MSG_TX_SIZE), size(MSG_RX_SIZE),
                (int) size(CM_PROGRESS_INTERVAL), (int) size(CQ_EQ_FAIRNESS), (int) size(COMP_PER_PROGRESS),
                bool(USE_RNDV_WRITE), bool(ENABLE_DYN_RBUF), bool(ENABLE_DIRECT_SEND), bool(DATA_AUTO_PROGRESS),
                size(UNEXPECTED_LIMIT));
    }

    /** libfabric's defaults, ignoring the environment. */
    public static RxmParams defaults() {
        return new RxmParams(16384, 16384, -1, 2048, 2048, 128, 128, 10000, 128, 1, false, true, true, false,
                1024);
    }

    public RxmParams withDynRbuf(boolean on) {
        return new RxmParams(bufferSize, eagerLimitParam, sarLimitParam, txSize, rxSize, msgTxSize, msgRxSize,
                cmProgressInterval, cqEqFairness, compPerProgress, useRndvWrite, on, enableDirectSend,
                dataAutoProgress, unexpectedLimit);
    }

    public RxmParams withRndvWrite(boolean on) {
        return new RxmParams(bufferSize, eagerLimitParam, sarLimitParam, txSize, rxSize, msgTxSize, msgRxSize,
                cmProgressInterval, cqEqFairness, compPerProgress, on, enableDynRbuf, enableDirectSend,
                dataAutoProgress, unexpectedLimit);
    }

    /**
     * The eager limit an endpoint uses (rxm_ep_init_proto): the eager_limit parameter counts only with
     * dynamic receive buffers and direct send; it never drops below buffer_size.
     */
    public long eagerLimit(boolean dynRbuf) {
        long e = bufferSize;
        if (dynRbuf && enableDirectSend && eagerLimitParam > e) {
            e = eagerLimitParam;
        }
        return e;
    }

    /** The SAR limit an endpoint uses; equal to the eager limit when SAR is off. */
    public long sarLimit(boolean dynRbuf) {
        long e = eagerLimit(dynRbuf);
        if (dynRbuf || e > 0xFFFF) {
            return e;
        }
        if (sarLimitParam < 0) {
            return e * 8;
        }
        return sarLimitParam <= e ? e : sarLimitParam;
    }

    private static boolean isSet(ProviderParameter p) {
        return System.getProperty(p.propertyName()) != null || System.getenv(p.envName()) != null;
    }

    private static long size(ProviderParameter p) {
        String v = p.value().trim();
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new FabricException(Errno.EINVAL, p.envName() + "='" + v + "' is not a number; unset it or "
                    + "give a whole number (default " + p.defaultValue() + ")");
        }
    }

    private static boolean bool(ProviderParameter p) {
        String v = p.value().trim().toLowerCase();
        return switch (v) {
            case "1", "true", "yes", "on", "y" -> true;
            case "0", "false", "no", "off", "n" -> false;
            default -> throw new FabricException(Errno.EINVAL, p.envName() + "='" + v + "' is not a boolean; "
                    + "use 0 or 1");
        };
    }
}
