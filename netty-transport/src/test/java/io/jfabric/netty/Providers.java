package io.jfabric.netty;

import org.junit.jupiter.api.Assumptions;

import java.util.List;

/**
 * The providers the module's tests run over, and the address a test server binds on each. The Soft-RoCE VM run
 * (scripts/verbs-in-vm netty) names its own: {@code -Djfabric.netty.test.providers=verbs,verbs;ofi_rxm} and
 * {@code -Djfabric.netty.test.node=<rxe address>}.
 */
public final class Providers {
    static final String SHM = "shm";
    static final String RXM = "tcp;ofi_rxm";
    static final String LIBFABRIC_RXM = "libfabric:tcp;ofi_rxm";
    /** Connected (FI_EP_MSG) providers: the channel is the endpoint, connected through the passive endpoint. */
    static final String TCP = "tcp";
    static final String LIBFABRIC_TCP = "libfabric:tcp";

    /** The node socket and verbs providers' test servers bind: loopback unless named. */
    public static final String NODE = System.getProperty("jfabric.netty.test.node", "127.0.0.1");

    /**
     * {@code -Djfabric.netty.test.timeScale=N} stretches the tests' waits for the Soft-RoCE VM, where JVM work runs
     * 25-35 times slower under emulation and a class's first case also compiles Netty's and gRPC's paths (gRPC's
     * first case there takes 140-160 s, the same case 14-22 s once warm); 1 on the host keeps the bounds tight.
     */
    static final long TIME_SCALE = Math.max(1, Long.getLong("jfabric.netty.test.timeScale", 1));

    private Providers() {
    }

    /** {@code seconds} on this machine ({@link #TIME_SCALE}). */
    public static long seconds(long seconds) {
        return seconds * TIME_SCALE;
    }

    /**
     * The providers the echo and gRPC tests and netty-testsuite run over unless told otherwise: shm, tcp;ofi_rxm,
     * the connected tcp and libfabric:tcp, and libfabric:tcp;ofi_rxm.
     */
    public static final String DEFAULTS = String.join(",", SHM, RXM, TCP, LIBFABRIC_TCP, LIBFABRIC_RXM);

    /** The providers of the echo and gRPC tests ({@code -Djfabric.netty.test.providers}, default {@link #DEFAULTS}). */
    public static List<String> streams() {
        String named = System.getProperty("jfabric.netty.test.providers", DEFAULTS);
        return List.of(named.split(","));
    }

    /** Those of {@link #streams()} whose endpoints have IP socket addresses, so a channel can dial a host and port. */
    public static List<String> hostAndPort() {
        return streams().stream().filter(p -> !p.equals(SHM)).toList();
    }

    /** Where a test server binds: shm names its own region; socket providers stay on {@link #NODE}. */
    public static JfabricAddress serverAddress(String provider) {
        return provider.equals(SHM) ? JfabricAddress.any(provider) : JfabricAddress.bind(provider, NODE, null);
    }

    public static void assumeAvailable(String provider) {
        Assumptions.assumeTrue(Jfabric.isAvailable(provider), () -> "provider " + provider
                + " offers no RDM or MSG endpoint on this machine (for libfabric:, native libfabric with its tcp (and ofi_rxm)"
                + " providers must be installed: scripts/install-native-deps.sh)");
    }
}
