package io.jfabric.netty;

import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.ServerChannelRecvByteBufAllocator;

import java.util.Map;

/**
 * A {@link JfabricServerChannel}'s options: Netty's common ones and {@link ChannelOption#SO_BACKLOG}, how many
 * accepted clients may wait while the pipeline is not reading (0, as for a server socket, takes the default,
 * {@link JfabricServerChannel#BACKLOG}). Servers written for NIO or epoll set it, and an option the channel refused
 * would log a warning at every bind. As with a server socket, a read takes up to 16 waiting clients (Netty's
 * messages per read), not one. {@link JfabricChannelOption#PROVIDER} names the provider of a bind to a host and port.
 */
final class JfabricServerChannelConfig extends DefaultChannelConfig {
    private volatile int backlog = JfabricServerChannel.BACKLOG;
    private volatile String provider;

    JfabricServerChannelConfig(JfabricServerChannel channel) {
        super(channel, new ServerChannelRecvByteBufAllocator());
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.SO_BACKLOG, JfabricChannelOption.PROVIDER);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.SO_BACKLOG) {
            return (T) Integer.valueOf(backlog);
        }
        if (option == JfabricChannelOption.PROVIDER) {
            return (T) provider;
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.SO_BACKLOG) {
            setBacklog((Integer) value);
            return true;
        }
        if (option == JfabricChannelOption.PROVIDER) {
            provider = (String) value;
            return true;
        }
        return super.setOption(option, value);
    }

    /** {@link JfabricChannelOption#PROVIDER}, or null. */
    String getProvider() {
        return provider;
    }

    int getBacklog() {
        return backlog;
    }

    JfabricServerChannelConfig setBacklog(int backlog) {
        if (backlog < 0) {
            throw new IllegalArgumentException("SO_BACKLOG must be 0 (the default, " + JfabricServerChannel.BACKLOG
                    + ") or more, not " + backlog);
        }
        this.backlog = backlog == 0 ? JfabricServerChannel.BACKLOG : backlog;
        return this;
    }
}
