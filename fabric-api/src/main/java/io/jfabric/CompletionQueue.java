package io.jfabric;

/**
 * Mirrors {@code struct fid_cq} (fi_cq(3)). Reads fill caller-owned {@link CqEntry}s and return how
 * many were read, or a negative errno: {@code -EAGAIN} when empty, {@code -EAVAIL} when the entry at
 * the head is an error. Entries behind an error wait until {@link #readError} has taken it. With
 * manual progress every read drives the provider's progress first; {@code read(entries, 0)} only
 * drives progress.
 */
public interface CompletionQueue extends FabricObject {
    /**
     * The attributes the queue was opened with.
     *
     * @return its attributes (size as granted)
     */
    CqAttr attr();

    /**
     * {@code fi_cq_read} of up to {@code count} entries.
     *
     * @param entries caller-owned entries, overwritten from index 0
     * @param count the most to read; 0 only drives progress
     * @return how many were read, or -FI_EAGAIN when empty, -FI_EAVAIL when an error entry is at the head
     */
    int read(CqEntry[] entries, int count);

    /**
     * {@code fi_cq_read} of one entry.
     *
     * @param entry the caller-owned entry to fill
     * @return 1, or -FI_EAGAIN when empty, -FI_EAVAIL when an error entry is at the head
     */
    int read(CqEntry entry);

    /**
     * {@code fi_cq_readfrom}: as {@link #read(CqEntry[], int)}, also filling {@link CqEntry#srcAddr}
     * (FI_SOURCE).
     *
     * @param entries caller-owned entries, overwritten from index 0
     * @param count the most to read
     * @return how many were read, or -FI_EAGAIN, -FI_EAVAIL
     */
    int readFrom(CqEntry[] entries, int count);

    /**
     * {@code fi_cq_readerr}: takes the error entry at the head.
     *
     * @param entry the caller-owned entry to fill
     * @param flags 0
     * @return 1, or -FI_EAGAIN if there is no error entry
     */
    int readError(CqErrEntry entry, long flags);

    /**
     * {@code fi_cq_sread}: blocks (sleeping, not spinning) until at least one entry is available, the timeout
     * passes or {@link #signal()} is called.
     *
     * @param entries caller-owned entries
     * @param count the most to read
     * @param timeoutMillis how long to wait in milliseconds; negative waits forever
     * @return how many were read, or -FI_EAGAIN on timeout or signal, -FI_EAVAIL for an error entry, -FI_ENOSYS
     *     with wait object FI_WAIT_NONE
     */
    int sread(CqEntry[] entries, int count, int timeoutMillis);

    /**
     * {@code fi_cq_sreadfrom}: {@link #sread} that also fills {@link CqEntry#srcAddr}.
     *
     * @param entries caller-owned entries
     * @param count the most to read
     * @param timeoutMillis how long to wait in milliseconds; negative waits forever
     * @return as {@link #sread}
     */
    int sreadFrom(CqEntry[] entries, int count, int timeoutMillis);

    /**
     * {@code fi_control(FI_GETWAIT)}: the native file descriptor a FI_WAIT_FD queue of the libfabric bridge
     * signals, for programs that mix in native code (block on it only after {@link Fabric#trywait} returned
     * 0). Java providers wait in Java and have no descriptor.
     *
     * @return the descriptor (0 or more), or -FI_ENOSYS where there is none
     */
    default int waitFd() {
        return -Errno.ENOSYS;
    }

    /** {@code fi_cq_signal}: wakes a thread blocked in {@link #sread}, which returns -FI_EAGAIN. */
    void signal();

    /**
     * {@code fi_cq_strerror}: text for the provider errno of an error entry.
     *
     * @param provErrno the entry's {@link CqErrEntry#provErrno}
     * @param errData the entry's {@link CqErrEntry#errData}, or null
     * @return readable text
     */
    default String strerror(int provErrno, byte[] errData) {
        return Errno.strerror(provErrno);
    }
}
