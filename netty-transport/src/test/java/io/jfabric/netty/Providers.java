package io.jfabric.netty;

import org.junit.jupiter.api.Assumptions;

/** The providers the module's tests run over, and the address a test server binds on each. */
final class Providers {
    static final String SHM = "shm";
    static final String RXM = "tcp;ofi_rxm";
    static final String LIBFABRIC_RXM = "libfabric:tcp;ofi_rxm";
    /** Connected (FI_EP_MSG) providers: the channel is the endpoint, connected through the passive endpoint. */
    static final String TCP = "tcp";
    static final String LIBFABRIC_TCP = "libfabric:tcp";

    private Providers() {
    }

    /** Where a test server binds: shm names its own region; socket providers stay on loopback. */
    static JfabricAddress serverAddress(String provider) {
        return provider.equals(SHM) ? JfabricAddress.any(provider) : JfabricAddress.bind(provider, "127.0.0.1", null);
    }

    static void assumeAvailable(String provider) {
        Assumptions.assumeTrue(Jfabric.isAvailable(provider), () -> "provider " + provider
                + " offers no RDM or MSG endpoint on this machine (for libfabric:, native libfabric with its tcp (and ofi_rxm)"
                + " providers must be installed: scripts/install-native-deps.sh)");
    }
}
