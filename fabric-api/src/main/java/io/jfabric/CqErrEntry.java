package io.jfabric;

/**
 * Mirrors {@code struct fi_cq_err_entry}: an operation that failed. {@code err} is a positive
 * {@link Errno}; {@code olen} is how many bytes were cut off (FI_ETRUNC); {@code errData} carries
 * provider detail (for FI_SOURCE_ERR, the raw source address).
 */
public class CqErrEntry extends CqEntry {
    public long olen;
    public int err;
    public int provErrno;
    public byte[] errData;

    public CqErrEntry setError(Object context, long flags, long len, long olen, int err, int provErrno) {
        set(context, flags, len, 0, 0, 0);
        this.olen = olen;
        this.err = err;
        this.provErrno = provErrno;
        this.errData = null;
        return this;
    }

    public void copyFrom(CqErrEntry o) {
        super.copyFrom(o);
        olen = o.olen;
        err = o.err;
        provErrno = o.provErrno;
        errData = o.errData;
    }

    @Override
    public String toString() {
        return "CqErrEntry[context=" + context + ", err=" + Errno.name(err) + " (" + Errno.strerror(err)
                + "), provErrno=" + provErrno + ", flags=" + OpFlags.toString(flags) + ", len=" + len
                + ", olen=" + olen + "]";
    }
}
