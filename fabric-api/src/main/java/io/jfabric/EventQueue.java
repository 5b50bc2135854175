package io.jfabric;

/**
 * Mirrors {@code struct fid_eq} (fi_eq(3)). {@link #read} returns the event number (≥ 0) and fills
 * the entry, {@code -EAGAIN} when empty, or {@code -EAVAIL} when the head is an error for
 * {@link #readError}. Flags may hold FI_PEEK (OpFlags.PEEK) to read without consuming.
 */
public interface EventQueue extends FabricObject {
    /**
     * The attributes the queue was opened with.
     *
     * @return its attributes
     */
    EqAttr attr();

    /**
     * {@code fi_eq_read}.
     *
     * @param entry the caller-owned entry to fill
     * @param flags 0, or FI_PEEK to leave the event in the queue
     * @return the event number (an {@link EqEvent}, 0 or more), or -FI_EAGAIN when empty, -FI_EAVAIL when an
     *     error entry is at the head
     */
    int read(EqEntry entry, long flags);

    /**
     * {@code fi_eq_readerr}: takes the error entry at the head.
     *
     * @param entry the caller-owned entry to fill
     * @param flags 0
     * @return 1, or -FI_EAGAIN if there is no error entry
     */
    int readError(EqErrEntry entry, long flags);

    /**
     * {@code fi_eq_sread}: blocks until an event arrives or the timeout passes.
     *
     * @param entry the caller-owned entry to fill
     * @param timeoutMillis how long to wait in milliseconds; negative waits forever
     * @param flags 0, or FI_PEEK
     * @return the event number, or -FI_EAGAIN on timeout, -FI_EAVAIL for an error entry
     */
    int sread(EqEntry entry, int timeoutMillis, long flags);

    /**
     * {@code fi_eq_write}: the application inserts an event.
     *
     * @param entry the event; its number is {@code entry.event}
     * @param flags 0
     */
    void write(EqEntry entry, long flags);

    /**
     * {@code fi_eq_write} of an error entry.
     *
     * @param entry the error
     * @param flags 0
     */
    void writeError(EqErrEntry entry, long flags);

    /**
     * {@code fi_control(FI_GETWAIT)}: the native file descriptor a FI_WAIT_FD queue of the libfabric bridge
     * signals (see {@link CompletionQueue#waitFd()}).
     *
     * @return the descriptor (0 or more), or -FI_ENOSYS where there is none
     */
    default int waitFd() {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_eq_strerror}: text for the provider errno of an error entry.
     *
     * @param provErrno the entry's {@link EqErrEntry#provErrno}
     * @param errData the entry's {@link EqErrEntry#errData}, or null
     * @return readable text
     */
    default String strerror(int provErrno, byte[] errData) {
        return Errno.strerror(provErrno);
    }
}
