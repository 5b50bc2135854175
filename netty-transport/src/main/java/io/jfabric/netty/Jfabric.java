package io.jfabric.netty;

import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;

import java.util.List;

/**
 * Whether the jfabric transport can run here, as Netty's {@code Epoll} answers for epoll: it can when discovery
 * finds at least one RDM provider (shm, tcp;ofi_rxm, ...) on the class or module path.
 */
public final class Jfabric {
    private static final Throwable UNAVAILABILITY_CAUSE = probe();

    private Jfabric() {
    }

    private static Throwable probe() {
        try {
            FabricInfo hints = Hints.create().epType(EndpointType.RDM).build();
            List<FabricInfo> infos = Fabrics.getInfo(hints);
            return infos.isEmpty() ? new UnsupportedOperationException("no jfabric RDM provider found") : null;
        } catch (Throwable t) {
            return t;
        }
    }

    public static boolean isAvailable() {
        return UNAVAILABILITY_CAUSE == null;
    }

    /** Why {@link #isAvailable()} is false (fi_getinfo's answer, naming each provider and why it declined), or null. */
    public static Throwable unavailabilityCause() {
        return UNAVAILABILITY_CAUSE;
    }

    /** Throws {@link #unavailabilityCause()} wrapped in an {@link UnsatisfiedLinkError}, as Netty's transports do. */
    public static void ensureAvailability() {
        if (UNAVAILABILITY_CAUSE != null) {
            throw (Error) new UnsatisfiedLinkError("the jfabric transport is not available").initCause(UNAVAILABILITY_CAUSE);
        }
    }

    /**
     * Whether {@code provider} ("shm", "tcp;ofi_rxm", "tcp", ...) offers the RDM endpoints the stream channels need,
     * or, for a connected provider ("tcp", "verbs", "libfabric:tcp"), MSG endpoints and a passive endpoint.
     */
    public static boolean isAvailable(String provider) {
        try {
            return !LoopDomain.infos(provider, null, null).isEmpty();
        } catch (RuntimeException e) {
            return MsgPath.isConnected(provider);
        }
    }
}
