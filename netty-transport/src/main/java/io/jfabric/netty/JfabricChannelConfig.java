package io.jfabric.netty;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.DuplexChannelConfig;

import java.util.Map;

/**
 * A {@link JfabricSocketChannel}'s options: Netty's common ones, {@link ChannelOption#ALLOW_HALF_CLOSURE}, and the
 * stream's {@link JfabricChannelOption#WINDOW} and {@link JfabricChannelOption#SLOT_SIZE}, which take effect when
 * the channel connects or is accepted, and {@link JfabricChannelOption#PROVIDER}, the provider of a dial to a host
 * and port.
 *
 * <p>{@link ChannelOption#SO_KEEPALIVE} is accepted and read back but changes nothing: what a keepalive is for, finding
 * a peer that is gone, the provider does on every stream (a dead peer closes the channel within the peer-failure
 * bound). gRPC sets it on every channel, and refusing it would log a warning per connection.
 */
public final class JfabricChannelConfig extends DefaultChannelConfig implements DuplexChannelConfig {
    /** Receive slots a peer may fill before it waits for credit. */
    public static final int DEFAULT_WINDOW = 16;
    /** Bytes per slot, header included; a DATA frame carries up to this less 16. */
    public static final int DEFAULT_SLOT_SIZE = 64 * 1024;

    private volatile boolean allowHalfClosure;
    private volatile int window = DEFAULT_WINDOW;
    private volatile int slotSize = DEFAULT_SLOT_SIZE;
    private volatile boolean keepAlive;
    private volatile String provider;

    JfabricChannelConfig(Channel channel) {
        super(channel);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.ALLOW_HALF_CLOSURE, ChannelOption.SO_KEEPALIVE,
                JfabricChannelOption.WINDOW, JfabricChannelOption.SLOT_SIZE, JfabricChannelOption.PROVIDER);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(allowHalfClosure);
        }
        if (option == JfabricChannelOption.WINDOW) {
            return (T) Integer.valueOf(window);
        }
        if (option == JfabricChannelOption.SLOT_SIZE) {
            return (T) Integer.valueOf(slotSize);
        }
        if (option == ChannelOption.SO_KEEPALIVE) {
            return (T) Boolean.valueOf(keepAlive);
        }
        if (option == JfabricChannelOption.PROVIDER) {
            return (T) provider;
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            setAllowHalfClosure((Boolean) value);
        } else if (option == JfabricChannelOption.WINDOW) {
            setWindow((Integer) value);
        } else if (option == JfabricChannelOption.SLOT_SIZE) {
            setSlotSize((Integer) value);
        } else if (option == ChannelOption.SO_KEEPALIVE) {
            keepAlive = (Boolean) value;
        } else if (option == JfabricChannelOption.PROVIDER) {
            provider = (String) value;
        } else {
            return super.setOption(option, value);
        }
        return true;
    }

    /** {@link JfabricChannelOption#PROVIDER}, or null. */
    public String getProvider() {
        return provider;
    }

    public int getWindow() {
        return window;
    }

    public JfabricChannelConfig setWindow(int window) {
        if (window < 2 || window > 4096) {
            throw new IllegalArgumentException("window " + window + " is outside 2..4096 slots");
        }
        this.window = window;
        return this;
    }

    public int getSlotSize() {
        return slotSize;
    }

    public JfabricChannelConfig setSlotSize(int slotSize) {
        if (slotSize < 4096 || slotSize > (16 << 20)) {
            throw new IllegalArgumentException("slot size " + slotSize + " is outside 4 KiB..16 MiB");
        }
        this.slotSize = slotSize;
        return this;
    }

    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    @Override
    public JfabricChannelConfig setAllowHalfClosure(boolean allowHalfClosure) {
        this.allowHalfClosure = allowHalfClosure;
        return this;
    }

    @Override
    @Deprecated
    public JfabricChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public JfabricChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public JfabricChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public JfabricChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public JfabricChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public JfabricChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public JfabricChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public JfabricChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }
}
