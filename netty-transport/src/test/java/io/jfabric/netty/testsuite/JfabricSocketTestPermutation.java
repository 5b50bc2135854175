package io.jfabric.netty.testsuite;

import io.jfabric.netty.Jfabric;
import io.jfabric.netty.JfabricChannelOption;
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
 * per provider named in {@code -Djfabric.netty.testsuite.providers} (default {@link #DEFAULT_PROVIDERS}: shm,
 * tcp;ofi_rxm, the connected tcp and libfabric:tcp, and libfabric:tcp;ofi_rxm), each a jfabric server and client on
 * one group.
 *
 * <p>A combo's server bootstrap notes its provider, so {@link #newSocketAddress()}, which the suite calls right
 * after, binds the server on that provider. Netty's leak detector runs at PARANOID for every suite test.
 */
public final class JfabricSocketTestPermutation {
    private static final EventLoopGroup GROUP = new JfabricEventLoopGroup(2,
            new DefaultThreadFactory("jfabric-testsuite", true));
    private static volatile String current = "shm";
    private static final String DEFAULT_PROVIDERS = io.jfabric.netty.Providers.DEFAULTS;

    static {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    }

    private JfabricSocketTestPermutation() {
    }

    /**
     * Runs {@code test} with the combos limited to {@code provider}: for a suite test whose handler blocks its event
     * loop while it waits for the peer, which works only where a send completes without that loop's progress (shm;
     * ofi_rxm connects on demand and needs it).
     */
    public static void only(String provider, org.junit.jupiter.api.function.Executable test) throws Throwable {
        String before = System.getProperty("jfabric.netty.testsuite.providers");
        System.setProperty("jfabric.netty.testsuite.providers", provider);
        try {
            test.execute();
        } finally {
            if (before == null) {
                System.clearProperty("jfabric.netty.testsuite.providers");
            } else {
                System.setProperty("jfabric.netty.testsuite.providers", before);
            }
        }
    }

    static List<String> providers() {
        String named = System.getProperty("jfabric.netty.testsuite.providers", DEFAULT_PROVIDERS);
        List<String> out = new ArrayList<>();
        for (String p : named.split(",")) {
            if (!p.isBlank() && Jfabric.isAvailable(p.strip())) {
                out.add(p.strip());
            }
        }
        return out;
    }

    public static List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socket() {
        return socketOver(providers());
    }

    /** How a provider's channel is made, which decides what a suite test can expect of it. */
    public enum Kind {
        /** shm: an RDM stream whose sends complete without the sender's loop. */
        SHM,
        /** A name ending in ";ofi_rxm" (tcp;ofi_rxm, verbs;ofi_rxm, libfabric:tcp;ofi_rxm): an RDM stream whose
         * connection is made on demand by the sending loop's progress. */
        RXM,
        /** tcp, verbs, libfabric:tcp: the channel is a MSG endpoint, connected through the passive endpoint. */
        CONNECTED;

        static Kind of(String provider) {
            return provider.equals("shm") ? SHM : provider.endsWith(";ofi_rxm") ? RXM : CONNECTED;
        }
    }

    /** The combos of the named providers ({@code -Djfabric.netty.testsuite.providers}) of the given kinds only. */
    public static List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socketOf(Kind... kinds) {
        List<String> named = ofKinds(kinds);
        requireSome(named, "of kind " + List.of(kinds), "-Djfabric.netty.testsuite.providers");
        return socketOver(named);
    }

    /**
     * Runs {@code test} over the named providers of the given kinds only (for a suite test that cannot hold over the
     * others; the caller says why).
     */
    public static void onlyKinds(org.junit.jupiter.api.function.Executable test, Kind... kinds) throws Throwable {
        only(String.join(",", ofKinds(kinds)), test);
    }

    /** Aborts the test ("not run", with why) when none of the named providers is {@code what} the test needs. */
    private static void requireSome(List<String> named, String what, String why) {
        org.junit.jupiter.api.Assumptions.assumeFalse(named.isEmpty(), () -> "not run: no provider " + what
                + " among those available of " + System.getProperty("jfabric.netty.testsuite.providers",
                DEFAULT_PROVIDERS) + " (" + why + ")");
    }

    private static List<String> ofKinds(Kind... kinds) {
        List<Kind> wanted = List.of(kinds);
        return providers().stream().filter(p -> wanted.contains(Kind.of(p))).toList();
    }

    /**
     * The combos of the named providers only (those available). None available aborts the test ("not run"), so that
     * a run whose providers are missing (verbs without an RDMA device) never passes without having run.
     */
    public static List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socketOver(List<String> names) {
        List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> combos = new ArrayList<>();
        for (String provider : names) {
            if (provider.isBlank() || !Jfabric.isAvailable(provider)) {
                continue;
            }
            combos.add(new BootstrapComboFactory<>() {
                @Override
                public ServerBootstrap newServerInstance() {
                    return serverOver(provider);
                }

                @Override
                public Bootstrap newClientInstance() {
                    return clientOf(provider);
                }

                @Override
                public String toString() {
                    return "jfabric " + provider;
                }
            });
        }
        org.junit.jupiter.api.Assumptions.assumeFalse(combos.isEmpty(), () -> "not run: none of " + names
                + " offers an endpoint here (named by -Djfabric.netty.testsuite.providers, default " + DEFAULT_PROVIDERS
                + ", and the test's own choice)");
        return combos;
    }

    /**
     * The combos of the named providers with an endpoint on the loopback interface, for a suite test that binds
     * {@code NetUtil.LOCALHOST} itself: those with host-and-port addresses, but not verbs, whose endpoints are its
     * RDMA devices' interfaces.
     */
    public static List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socketOnLoopback() {
        List<String> named = ofKinds(Kind.RXM, Kind.CONNECTED).stream().filter(p -> !p.startsWith("verbs")).toList();
        requireSome(named, "with an endpoint on loopback", "shm has no host-and-port addresses; verbs none on loopback");
        return socketOver(named);
    }

    /**
     * Clients of the named providers that have host-and-port addresses (not shm, whose addresses name regions), for
     * the suite tests that dial a host and port themselves ({@code Bootstrap.connect(host, port)}).
     */
    public static List<BootstrapFactory<Bootstrap>> clientSocketByHostAndPort() {
        List<String> named = ofKinds(Kind.RXM, Kind.CONNECTED);
        requireSome(named, "with host-and-port addresses", "-Djfabric.netty.testsuite.providers");
        List<BootstrapFactory<Bootstrap>> out = new ArrayList<>();
        for (String provider : named) {
            out.add(() -> clientOf(provider));
        }
        return out;
    }

    /** Servers of every named provider, for the suite tests whose peer is not a Netty bootstrap of the combo. */
    public static List<BootstrapFactory<ServerBootstrap>> serverSocket() {
        List<BootstrapFactory<ServerBootstrap>> out = new ArrayList<>();
        for (String provider : providers()) {
            out.add(() -> serverOver(provider));
        }
        org.junit.jupiter.api.Assumptions.assumeFalse(out.isEmpty(), () -> "not run: none of the named providers "
                + "offers an endpoint here (-Djfabric.netty.testsuite.providers)");
        return out;
    }

    /** The provider of the combo whose server bootstrap was made last. */
    static String currentProvider() {
        return current;
    }

    /** A server of {@code provider}; a bind to a host and port (the suite's {@code bind(LOCALHOST, 0)}) is on it. */
    private static ServerBootstrap serverOver(String provider) {
        current = provider;
        return new ServerBootstrap().group(GROUP, GROUP).channel(JfabricServerChannel.class)
                .option(JfabricChannelOption.PROVIDER, provider);
    }

    /** A client whose dial of a host and port goes over {@code provider}. */
    static Bootstrap clientOf(String provider) {
        return new Bootstrap().group(GROUP).channel(JfabricSocketChannel.class)
                .option(JfabricChannelOption.PROVIDER, provider);
    }

    /** Where the current combo's server binds: shm names its own region, socket providers bind loopback. */
    public static SocketAddress newSocketAddress() {
        String p = current;
        return io.jfabric.netty.Providers.serverAddress(p);
    }
}
