package io.jfabric.cli.bw;

import io.jfabric.EndpointType;
import io.jfabric.Threading;

import java.util.List;

/**
 * What {@code jfabric bw} or {@code rma-bw} was asked to do, the subset of fabtests' {@code ft_opts} they use.
 *
 * @param provider   -p, or null for any
 * @param epType     -e
 * @param tagged     -m tagged
 * @param sizes      the message sizes, in order
 * @param iterations -I: windows per size (messages = iterations x window)
 * @param warmup     -w: windows per size before the clock starts
 * @param window     -W: operations in flight per window
 * @param verify     -c: fill every message with fi_pingpong's pattern and check it on arrival
 * @param rate       --rate: message-rate mode (inject where the provider allows, report messages/s)
 * @param srcPort    -B (0: server 47592, client any)
 * @param dstPort    -P (0: 47592)
 * @param dstAddr    the server's address (client), or null (server)
 * @param timeoutMs  longest wait for the peer
 * @param json       --json target file ("-" for stdout), or null
 * @param csv        --csv target file ("-" for stdout), or null
 * @param progress   show progress on stderr for sizes that run long
 * @param more       --more: rate mode's posts of a window carry FI_MORE but the last (the transmit CQ is then
 *                   bound with FI_SELECTIVE_COMPLETION and FI_COMPLETION is in the default op_flags, so that
 *                   fi_sendmsg(FI_INJECT | FI_MORE) reports nothing, as fi_inject does)
 * @param threading  --threading: the hints' threading level, or null to leave it unset as fabtests do
 */
record BenchOptions(String provider, EndpointType epType, boolean tagged, List<Long> sizes, int iterations,
                    int warmup, int window, boolean verify, boolean rate, int srcPort, int dstPort, String dstAddr,
                    long timeoutMs, String json, String csv, boolean progress, boolean more, Threading threading) {

    boolean isClient() {
        return dstAddr != null;
    }

    long maxSize() {
        long m = 1;
        for (long s : sizes) {
            m = Math.max(m, s);
        }
        return m;
    }
}
