package io.jfabric.netty;

import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.util.concurrent.ThreadFactory;

/**
 * An event loop group whose loops drive jfabric channels ({@link JfabricServerChannel},
 * {@link JfabricSocketChannel}); the same as {@code new MultiThreadIoEventLoopGroup(n, JfabricIoHandler.newFactory())}.
 */
public final class JfabricEventLoopGroup extends MultiThreadIoEventLoopGroup {
    /** As many loops as Netty's default (twice the processors). */
    public JfabricEventLoopGroup() {
        this(0);
    }

    public JfabricEventLoopGroup(int nThreads) {
        super(nThreads, JfabricIoHandler.newFactory());
    }

    public JfabricEventLoopGroup(int nThreads, ThreadFactory threadFactory) {
        super(nThreads, threadFactory, JfabricIoHandler.newFactory());
    }
}
