package io.jfabric.netty;

import io.netty.channel.EventLoopGroup;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.concurrent.TimeUnit;

/** One jfabric event loop group of two loops for a test class, with Netty's leak detector at PARANOID. */
public abstract class GroupTestBase {
    protected static EventLoopGroup group;

    @BeforeAll
    static void startGroup() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        group = new JfabricEventLoopGroup(2);
    }

    @AfterAll
    static void stopGroup() throws Exception {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }
}
