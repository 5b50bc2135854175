package io.jfabric.provider.verbs;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.util.Sockaddr;

import java.lang.foreign.MemorySegment;

/** Control-path helpers around the bindings: turning C failures into FabricExceptions. */
final class Native {
    private Native() {
    }

    static boolean isNull(MemorySegment p) {
        return p == null || p.address() == 0;
    }

    /** Throws for a librdmacm-style -1 return, with the captured errno. */
    static void checkCm(int rc, MemorySegment errnoState, String what) {
        if (rc != 0) {
            int err = NativeLibrary.errno(errnoState);
            throw new FabricException(err == 0 ? Errno.EIO : err, what + " failed: " + strerror(err));
        }
    }

    /** Throws for a libibverbs-style errno return. */
    static void checkVerbs(int rc, String what) {
        if (rc != 0) {
            int err = Math.abs(rc);
            throw new FabricException(err, what + " failed: " + strerror(err));
        }
    }

    /** Throws when a pointer-returning call failed, with the captured errno. */
    static MemorySegment checkPtr(MemorySegment p, MemorySegment errnoState, String what) {
        if (isNull(p)) {
            int err = NativeLibrary.errno(errnoState);
            throw new FabricException(err == 0 ? Errno.ENOMEM : err, what + " failed: " + strerror(err));
        }
        return p;
    }

    /** Throws EINVAL unless {@code sa} is a sockaddr_in or sockaddr_in6 (any port: 0 binds an ephemeral one). */
    static void checkSockaddr(byte[] sa, String what) {
        String why = Sockaddr.validateShape(sa);
        if (why != null) {
            throw new FabricException(Errno.EINVAL, what + " is not a sockaddr_in or sockaddr_in6 (FI_SOCKADDR_IN/IN6): "
                    + why);
        }
    }

    /** The Linux errno's text (libfabric's numbers equal Linux's below 256). */
    static String strerror(int err) {
        return Errno.strerror(err) + " (errno " + err + ")";
    }
}
