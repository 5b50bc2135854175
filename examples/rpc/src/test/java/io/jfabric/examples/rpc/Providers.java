package io.jfabric.examples.rpc;

import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.Hints;

import java.util.stream.Stream;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The RDM providers the tests run on: jfabric's own and the libfabric bridge's. */
final class Providers {
    static final String[] ALL = {"shm", "tcp;ofi_rxm", "libfabric:shm", "libfabric:tcp;ofi_rxm"};

    private Providers() {
    }

    static Stream<String> all() {
        return Stream.of(ALL);
    }

    /** Skips the test when {@code provider} offers no RDM endpoint with tagged messages and RMA here. */
    static void assumeAvailable(String provider) {
        String why = null;
        try {
            Fabrics.getInfo(Hints.create().caps(Caps.MSG | Caps.TAGGED | Caps.RMA).epType(EndpointType.RDM)
                    .provider(provider).build());
        } catch (FabricException e) {
            why = e.getMessage();
        }
        String reason = why;
        assumeTrue(reason == null, () -> provider + " is not available on this machine: " + reason);
    }
}
