package io.jfabric;

/**
 * Mirrors {@code struct fid_eq} (fi_eq(3)). {@link #read} returns the event number (≥ 0) and fills
 * the entry, {@code -EAGAIN} when empty, or {@code -EAVAIL} when the head is an error for
 * {@link #readError}. Flags may hold FI_PEEK (OpFlags.PEEK) to read without consuming.
 */
public interface EventQueue extends FabricObject {
    EqAttr attr();

    int read(EqEntry entry, long flags);

    int readError(EqErrEntry entry, long flags);

    /** {@code fi_eq_sread}: blocks up to {@code timeoutMillis} (negative = forever); -EAGAIN on timeout. */
    int sread(EqEntry entry, int timeoutMillis, long flags);

    /** {@code fi_eq_write}: the application inserts an event (event number in {@code entry.event}). */
    void write(EqEntry entry, long flags);

    /** {@code fi_eq_write} of an error entry. */
    void writeError(EqErrEntry entry, long flags);

    default String strerror(int provErrno, byte[] errData) {
        return Errno.strerror(provErrno);
    }
}
