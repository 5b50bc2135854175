package io.jfabric;

/**
 * Mirrors {@code struct fid_cq} (fi_cq(3)). Reads fill caller-owned {@link CqEntry}s and return how
 * many were read, or a negative errno: {@code -EAGAIN} when empty, {@code -EAVAIL} when the entry at
 * the head is an error. Entries behind an error wait until {@link #readError} has taken it. With
 * manual progress every read drives the provider's progress first; {@code read(entries, 0)} only
 * drives progress.
 */
public interface CompletionQueue extends FabricObject {
    CqAttr attr();

    /** {@code fi_cq_read} of up to {@code count} entries. */
    int read(CqEntry[] entries, int count);

    /** {@code fi_cq_read} of one entry; returns 1, or a negative errno. */
    int read(CqEntry entry);

    /** {@code fi_cq_readfrom}: as read, also filling {@link CqEntry#srcAddr}. */
    int readFrom(CqEntry[] entries, int count);

    /** {@code fi_cq_readerr}: returns 1 and fills {@code entry}, or -EAGAIN if there is no error. */
    int readError(CqErrEntry entry, long flags);

    /**
     * {@code fi_cq_sread}: blocks (sleeping, not spinning) until at least one entry is available, the
     * timeout (ms; negative = forever) passes (-EAGAIN) or {@link #signal()} is called (-EAGAIN).
     */
    int sread(CqEntry[] entries, int count, int timeoutMillis);

    /** {@code fi_cq_sreadfrom}. */
    int sreadFrom(CqEntry[] entries, int count, int timeoutMillis);

    /** {@code fi_cq_signal}: wakes a thread blocked in sread. */
    void signal();

    /** {@code fi_cq_strerror}: text for a provider errno of an error entry. */
    default String strerror(int provErrno, byte[] errData) {
        return Errno.strerror(provErrno);
    }
}
