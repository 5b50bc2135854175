package io.jfabric.cli.pingpong;

import io.jfabric.EndpointType;
import io.jfabric.Threading;

/**
 * What {@code jfabric pingpong} was asked to do; fi_pingpong's struct pp_opts plus the hint fields its
 * options set.
 *
 * @param provider     -p, or null for any
 * @param domain       -d, or null for any
 * @param epType       -e (fi_pingpong's default is FI_EP_DGRAM)
 * @param tagged       -m tagged
 * @param iterations   -I (default 10)
 * @param warmup       --warmup: untimed round trips before each size's timed ones (jfabric's addition, default 0)
 * @param size         -S n, or -1 when not given
 * @param allSizes     -S all
 * @param verify       -c
 * @param srcPort      -B (0: server 47592, client any)
 * @param dstPort      -P (0: 47592)
 * @param dstAddr      the server's address (client), or null (server)
 * @param ipv6         -6
 * @param debug        -v
 * @param timeoutMs    how long a wait for the peer may last (jfabric's addition; fi_pingpong waits forever)
 * @param threading    --threading: the hints' threading level (jfabric's addition), or null to leave it unset
 */
record PingPongOptions(String provider, String domain, EndpointType epType, boolean tagged, int iterations, int warmup,
                       int size, boolean allSizes, boolean verify, int srcPort, int dstPort, String dstAddr,
                       boolean ipv6, boolean debug, long timeoutMs, Threading threading) {

    boolean isClient() {
        return dstAddr != null;
    }

    boolean sizeGiven() {
        return size >= 0;
    }
}
