package io.jfabric;

/**
 * Thrown by control-path calls (open, bind, enable, connect, close ...). It carries libfabric's
 * error number, where libfabric would return {@code -FI_Exxx}; its message says what to do about it.
 * The data path never throws: it returns a negative errno.
 */
public class FabricException extends RuntimeException {
    /** The positive libfabric error number. */
    private final int errno;

    /**
     * An exception for errno, its message followed by the errno's name and text.
     *
     * @param errno a libfabric error number, positive or negated
     * @param message what failed and what to do about it
     */
    public FabricException(int errno, String message) {
        super(message + " (" + Errno.name(errno) + ": " + Errno.strerror(errno) + ")");
        this.errno = Math.abs(errno);
    }

    /**
     * As {@link #FabricException(int, String)}, with a cause.
     *
     * @param errno a libfabric error number, positive or negated
     * @param message what failed and what to do about it
     * @param cause the underlying exception
     */
    public FabricException(int errno, String message, Throwable cause) {
        this(errno, message);
        initCause(cause);
    }

    /**
     * The error number.
     *
     * @return the positive libfabric error number
     */
    public int errno() {
        return errno;
    }

    /**
     * Turns a negative data-path return into an exception.
     *
     * @param rc a return code
     * @param what the operation, for the message
     * @return {@code rc} when it is 0 or more
     * @throws FabricException when {@code rc} is a negative errno
     */
    public static int check(int rc, String what) {
        if (rc < 0) {
            throw new FabricException(-rc, what);
        }
        return rc;
    }
}
