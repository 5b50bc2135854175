package io.jfabric.netty;

import io.netty.channel.ChannelOption;

/** The options of a jfabric stream channel beyond Netty's own. */
public final class JfabricChannelOption<T> extends ChannelOption<T> {
    /** Receive slots the peer may fill before waiting for credit (flow-control window), default 16. */
    public static final ChannelOption<Integer> WINDOW = valueOf(JfabricChannelOption.class, "JFABRIC_WINDOW");
    /** Bytes per send and receive slot, header included, default 64 KiB. */
    public static final ChannelOption<Integer> SLOT_SIZE = valueOf(JfabricChannelOption.class, "JFABRIC_SLOT_SIZE");

    @SuppressWarnings({"unused", "deprecation"})
    private JfabricChannelOption() {
        super(null);
    }
}
