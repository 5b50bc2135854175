package io.jfabric;

/**
 * Thrown by control-path calls (open, bind, enable, connect, close ...). It carries libfabric's
 * error number, where libfabric would return {@code -FI_Exxx}; its message says what to do about it.
 * The data path never throws: it returns a negative errno.
 */
public class FabricException extends RuntimeException {
    private final int errno;

    public FabricException(int errno, String message) {
        super(message + " (" + Errno.name(errno) + ": " + Errno.strerror(errno) + ")");
        this.errno = Math.abs(errno);
    }

    public FabricException(int errno, String message, Throwable cause) {
        this(errno, message);
        initCause(cause);
    }

    /** The positive libfabric error number. */
    public int errno() {
        return errno;
    }

    /** Throws a FabricException when {@code rc} is a negative errno; returns rc otherwise. */
    public static int check(int rc, String what) {
        if (rc < 0) {
            throw new FabricException(-rc, what);
        }
        return rc;
    }
}
