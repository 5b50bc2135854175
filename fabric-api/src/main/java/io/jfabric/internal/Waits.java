package io.jfabric.internal;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.WaitSupport;

import java.util.ServiceLoader;

/** The {@link WaitSupport} on the module or class path, loaded once. */
public final class Waits {
    private static final WaitSupport SUPPORT = ServiceLoader.load(WaitSupport.class, Waits.class.getClassLoader())
            .findFirst().orElse(null);

    private Waits() {
    }

    /**
     * The wait support, or ENOSYS when provider-util is absent.
     *
     * @return the support
     */
    public static WaitSupport support() {
        if (SUPPORT == null) {
            throw new FabricException(Errno.ENOSYS, "no wait set support on the path: add jfabric's provider-util");
        }
        return SUPPORT;
    }

    /**
     * Whether wait support is present.
     *
     * @return true when {@link #support()} succeeds
     */
    public static boolean present() {
        return SUPPORT != null;
    }
}
