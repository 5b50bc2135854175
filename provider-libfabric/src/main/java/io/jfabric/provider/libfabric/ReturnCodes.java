package io.jfabric.provider.libfabric;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;

/**
 * Native return codes to jfabric errors. On Linux libfabric's {@code FI_E*} values are the ones
 * {@link Errno} uses (POSIX numbers below 256, libfabric's own from 256), so the number passes through
 * unchanged; the text comes from libfabric's {@code fi_strerror}, which also knows provider codes.
 */
final class ReturnCodes {
    private ReturnCodes() {
    }

    /** fi_strerror's text for a positive or negated libfabric error number. */
    static String strerror(long rc) {
        int e = (int) Math.abs(rc);
        try {
            String s = InfoMapper.string(Fabric_h.fi_strerror(e));
            return s == null ? Errno.strerror(e) : s;
        } catch (RuntimeException | LinkageError e2) {
            return Errno.strerror(e);
        }
    }

    /** Throws when {@code rc} is negative: {@code what} failed, and {@code advice} says what to do. */
    static int check(long rc, String what, String advice) {
        if (rc < 0) {
            throw failure(rc, what, advice);
        }
        return (int) rc;
    }

    static FabricException failure(long rc, String what, String advice) {
        int e = (int) Math.abs(rc);
        return new FabricException(e, "libfabric " + what + " failed: " + strerror(e)
                + (advice == null || advice.isEmpty() ? "" : "; " + advice));
    }
}
