package io.jfabric.netty.testsuite;

import io.jfabric.netty.Jfabric;
import io.jfabric.netty.JfabricAddress;
import io.jfabric.netty.JfabricEventLoopGroup;
import io.jfabric.netty.JfabricServerChannel;
import io.jfabric.netty.JfabricSocketChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * netty-testsuite's socket tests over jfabric (the counterpart of Netty's EpollSocketTestPermutation): one combo
 * per provider named in {@code -Djfabric.netty.testsuite.providers} (default shm and tcp;ofi_rxm, plus
 * libfabric:tcp;ofi_rxm where native libfabric is installed), each a jfabric server and client on one group.
 *
 * <p>A combo's server bootstrap notes its provider, so {@link #newSocketAddress()}, which the suite calls right
 * after, binds the server on that provider. Netty's leak detector runs at PARANOID for every suite test.
 */
public final class JfabricSocketTestPermutation {
    private static final EventLoopGroup GROUP = new JfabricEventLoopGroup(2,
            new DefaultThreadFactory("jfabric-testsuite", true));
    private static volatile String current = "shm";

    static {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    }

    private JfabricSocketTestPermutation() {
    }

    static List<String> providers() {
        String named = System.getProperty("jfabric.netty.testsuite.providers", "shm,tcp;ofi_rxm,libfabric:tcp;ofi_rxm");
        List<String> out = new ArrayList<>();
        for (String p : named.split(",")) {
            if (!p.isBlank() && Jfabric.isAvailable(p.strip())) {
                out.add(p.strip());
            }
        }
        return out;
    }

    public static List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socket() {
        List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> combos = new ArrayList<>();
        for (String provider : providers()) {
            combos.add(new BootstrapComboFactory<>() {
                @Override
                public ServerBootstrap newServerInstance() {
                    current = provider;
                    return new ServerBootstrap().group(GROUP, GROUP).channel(JfabricServerChannel.class);
                }

                @Override
                public Bootstrap newClientInstance() {
                    return new Bootstrap().group(GROUP).channel(JfabricSocketChannel.class);
                }

                @Override
                public String toString() {
                    return "jfabric " + provider;
                }
            });
        }
        return combos;
    }

    public static List<BootstrapFactory<Bootstrap>> clientSocket() {
        List<BootstrapFactory<Bootstrap>> out = new ArrayList<>();
        for (String provider : providers()) {
            out.add(() -> {
                current = provider;
                return new Bootstrap().group(GROUP).channel(JfabricSocketChannel.class);
            });
        }
        return out;
    }

    /** Where the current combo's server binds: shm names its own region, socket providers bind loopback. */
    public static SocketAddress newSocketAddress() {
        String p = current;
        return p.equals("shm") ? JfabricAddress.any(p) : JfabricAddress.bind(p, "127.0.0.1", null);
    }
}
