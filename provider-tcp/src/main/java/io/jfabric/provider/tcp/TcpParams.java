package io.jfabric.provider.tcp;

import io.jfabric.util.ProviderParams;

/**
 * The tcp provider's tunables, read from {@code FI_TCP_<NAME>} or {@code -Djfabric.tcp.<name>}. Names follow
 * libfabric's tcp provider where it has one ({@code port_low_range}, {@code port_high_range},
 * {@code prefetch_rbuf_size}, {@code nodelay}, {@code tx_size}, {@code rx_size}).
 */
final class TcpParams {
    static final String PROV = "tcp";
    /** TCPX_MAX_INJECT. */
    static final int INJECT_SIZE = 128;
    /** TCPX_IOV_LIMIT. */
    static final int IOV_LIMIT = 4;

    static final ProviderParams PARAMS = new ProviderParams(PROV);

    static final ProviderParams.IntParam PORT_LOW = PARAMS.integer("port_low_range", 0,
            "lowest port a passive endpoint binds when the application gives none (0: any)");
    static final ProviderParams.IntParam PORT_HIGH = PARAMS.integer("port_high_range", 0,
            "highest port a passive endpoint binds when the application gives none (0: any)");
    static final ProviderParams.LongParam PREFETCH = PARAMS.size("prefetch_rbuf_size", 9000,
            "bytes read ahead from the socket to save system calls on small messages; bounded, so a receiver"
                    + " without posted buffers still pushes back through TCP");
    static final ProviderParams.BoolParam NODELAY = PARAMS.bool("nodelay", true,
            "set TCP_NODELAY on data connections");
    static final ProviderParams.BoolParam READ_PROBE = PARAMS.bool("read_probe", false,
            "before reading a socket that the last read drained, ask whether data came (poll(2) on its"
                    + " descriptor, else an epoll set of its own); off: every poll reads, which on a busy"
                    + " connection is one system call where the probe makes two");
    static final ProviderParams.BoolParam GATHER_WRITE = PARAMS.bool("gather_write", true,
            "send a frame's header and payload in one gathering write (as libfabric's sendmsg); off: one write"
                    + " per buffer");
    static final ProviderParams.BoolParam COALESCE_SENDS = PARAMS.bool("coalesce_sends", true,
            "jfabric only: under manual progress, a send of up to 9000 bytes posted after another with no progress"
                    + " call (CQ, counter or EQ read) between them is written at the next progress call, so a burst"
                    + " leaves in one write while its first send leaves at once; off: every send is written when"
                    + " posted, as libfabric's tcp does");
    static final ProviderParams.LongParam TX_SIZE = PARAMS.size("tx_size", 256,
            "default transmit queue depth per endpoint");
    static final ProviderParams.LongParam RX_SIZE = PARAMS.size("rx_size", 256,
            "default receive queue depth per endpoint");
    static final ProviderParams.LongParam MAX_MSG_SIZE = PARAMS.size("max_msg_size", 1L << 30,
            "largest message or RMA transfer accepted; a larger incoming frame closes the connection");
    static final ProviderParams.IntParam PROGRESS_IDLE_US = PARAMS.integer("progress_idle_us", 1000,
            "with FI_PROGRESS_AUTO, longest sleep of the progress thread between socket readiness checks");

    static final ProviderParams.IntParam USER_TIMEOUT_MS = PARAMS.integer("user_timeout", 0,
            "milliseconds a data connection's peer may leave sent data unacknowledged (TCP_USER_TIMEOUT) or an idle"
                    + " connection unanswered to keepalive probes before the connection fails with ETIMEDOUT; 0: the"
                    + " kernel's defaults (about 15 minutes with data in flight, 2 hours idle). Linux");

    static final ProviderParams.BoolParam SAME_HOST_COPY = PARAMS.bool("same_host_copy", true,
            "jfabric only: between jfabric endpoints in two processes of this host and user, a message of at least"
                    + " same_host_min bytes from native buffers is copied by the receiver straight out of the"
                    + " sender's memory (process_vm_readv) instead of sent through the socket, and so is an RMA read"
                    + " of at least that many bytes of native memory, by the initiator from the ranges the target"
                    + " checked, and an RMA write of that size from native buffers, by the target; each side"
                    + " proves it can when the connection is set up, and libfabric peers never take part");
    static final ProviderParams.LongParam SAME_HOST_MIN = PARAMS.size("same_host_min", 65536,
            "smallest message, RMA read or RMA write the same-host copy carries (same_host_copy)");

    private TcpParams() {
    }
}
