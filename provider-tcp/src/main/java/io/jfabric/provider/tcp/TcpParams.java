package io.jfabric.provider.tcp;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.ProviderParameter;

import java.util.List;

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
    static final int CM_DATA_SIZE = 256;

    static final ProviderParameter PORT_LOW = new ProviderParameter(PROV, "port_low_range", "int", "0",
            "lowest port a passive endpoint binds when the application gives none (0: any)");
    static final ProviderParameter PORT_HIGH = new ProviderParameter(PROV, "port_high_range", "int", "0",
            "highest port a passive endpoint binds when the application gives none (0: any)");
    static final ProviderParameter PREFETCH = new ProviderParameter(PROV, "prefetch_rbuf_size", "size_t", "9000",
            "bytes read ahead from the socket to save system calls on small messages; bounded, so a receiver"
                    + " without posted buffers still pushes back through TCP");
    static final ProviderParameter NODELAY = new ProviderParameter(PROV, "nodelay", "bool", "1",
            "set TCP_NODELAY on data connections");
    static final ProviderParameter TX_SIZE = new ProviderParameter(PROV, "tx_size", "size_t", "256",
            "default transmit queue depth per endpoint");
    static final ProviderParameter RX_SIZE = new ProviderParameter(PROV, "rx_size", "size_t", "256",
            "default receive queue depth per endpoint");
    static final ProviderParameter MAX_MSG_SIZE = new ProviderParameter(PROV, "max_msg_size", "size_t",
            String.valueOf(1L << 30), "largest message or RMA transfer accepted (a larger incoming frame"
                    + " closes the connection)");
    static final ProviderParameter AUTO_IDLE_MICROS = new ProviderParameter(PROV, "progress_idle_us", "int", "1000",
            "with FI_PROGRESS_AUTO, longest sleep of the progress thread between socket readiness checks");

    static final List<ProviderParameter> ALL = List.of(PORT_LOW, PORT_HIGH, PREFETCH, NODELAY, TX_SIZE, RX_SIZE,
            MAX_MSG_SIZE, AUTO_IDLE_MICROS);

    private TcpParams() {
    }

    static long longValue(ProviderParameter p) {
        String v = p.value().trim();
        try {
            return Long.decode(v);
        } catch (NumberFormatException e) {
            throw new FabricException(Errno.EINVAL, p.envName() + "='" + v + "' is not a number; " + p.help());
        }
    }

    static boolean boolValue(ProviderParameter p) {
        String v = p.value().trim().toLowerCase();
        return v.equals("1") || v.equals("true") || v.equals("yes") || v.equals("on");
    }
}
