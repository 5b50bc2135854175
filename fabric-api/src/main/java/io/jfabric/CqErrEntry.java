package io.jfabric;

/**
 * Mirrors {@code struct fi_cq_err_entry}: an operation that failed. {@code err} is a positive
 * {@link Errno}; {@code olen} is how many bytes were cut off (FI_ETRUNC); {@code errData} carries
 * provider detail (for FI_SOURCE_ERR, the raw source address).
 */
public class CqErrEntry extends CqEntry {
    /** {@code olen}: bytes cut off (FI_ETRUNC). */
    public long olen;
    /** {@code err}: the positive {@link Errno}. */
    public int err;
    /** {@code prov_errno}: the provider's own error number, for {@link CompletionQueue#strerror}. */
    public int provErrno;
    /** {@code err_data}: provider detail, or null (for FI_SOURCE_ERR, the raw source address). */
    public byte[] errData;

    /** An empty error entry, to be filled by readError. */
    public CqErrEntry() {
    }

    /**
     * Fills the error fields at once; for providers writing error completions.
     *
     * @param context the operation's context
     * @param flags OpFlags bits
     * @param len bytes transferred
     * @param olen bytes cut off
     * @param err the positive errno
     * @param provErrno the provider errno
     * @return this entry
     */
    public CqErrEntry setError(Object context, long flags, long len, long olen, int err, int provErrno) {
        set(context, flags, len, 0, 0, 0);
        this.olen = olen;
        this.err = err;
        this.provErrno = provErrno;
        this.errData = null;
        return this;
    }

    /**
     * Copies every field of {@code o}.
     *
     * @param o the entry to copy
     */
    public void copyFrom(CqErrEntry o) {
        super.copyFrom(o);
        olen = o.olen;
        err = o.err;
        provErrno = o.provErrno;
        errData = o.errData;
    }

    /**
     * The entry with fi_cq_err_entry's field names, err by name and fi_strerror text.
     *
     * @return e.g. {@code fi_cq_err_entry[..., err: FI_ETRUNC (Truncation error), prov_errno: 0, ...]}
     */
    @Override
    public String toString() {
        return InfoPrinter.cqErrEntry(this);
    }
}
