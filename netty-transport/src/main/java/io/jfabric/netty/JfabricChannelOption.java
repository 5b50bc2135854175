package io.jfabric.netty;

import io.netty.channel.ChannelOption;

/** The options of a jfabric stream channel beyond Netty's own. */
public final class JfabricChannelOption<T> extends ChannelOption<T> {
    /** Receive slots the peer may fill before waiting for credit (flow-control window), default 16. */
    public static final ChannelOption<Integer> WINDOW = valueOf(JfabricChannelOption.class, "JFABRIC_WINDOW");
    /** Bytes per send and receive slot, header included, default 64 KiB. */
    public static final ChannelOption<Integer> SLOT_SIZE = valueOf(JfabricChannelOption.class, "JFABRIC_SLOT_SIZE");
    /**
     * The provider ({@code "tcp;ofi_rxm"}, {@code "tcp"}, {@code "libfabric:tcp;ofi_rxm"} ...) over which a client
     * dials, or a server binds, a host and port ({@link java.net.InetSocketAddress}) instead of a
     * {@link JfabricAddress}, which names its provider itself. No default: a host and port without it is refused.
     */
    public static final ChannelOption<String> PROVIDER = valueOf(JfabricChannelOption.class, "JFABRIC_PROVIDER");

    @SuppressWarnings({"unused", "deprecation"})
    private JfabricChannelOption() {
        super(null);
    }
}
