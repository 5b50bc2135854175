package io.jfabric.provider.shm;

/**
 * A control-path failure inside the shm machinery (creating, opening or validating a region),
 * carrying a libfabric errno; the provider layer turns it into a {@code FabricException}.
 */
public final class ShmException extends RuntimeException {

    private final int errno;

    public ShmException(int errno, String message) {
        super(message);
        this.errno = errno;
    }

    public ShmException(int errno, String message, Throwable cause) {
        super(message, cause);
        this.errno = errno;
    }

    /** The positive libfabric error number. */
    public int errno() {
        return errno;
    }
}
