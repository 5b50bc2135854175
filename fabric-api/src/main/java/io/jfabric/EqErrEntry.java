package io.jfabric;

/**
 * Mirrors {@code struct fi_eq_err_entry}. A rejected connect arrives as err=ECONNREFUSED with the
 * reject data in {@code errData}; a failed async AV insert carries the index in {@code data}.
 */
public class EqErrEntry {
    /** {@code fid}: the object the error is about. */
    public Object fid;
    /** {@code context}: that object's or operation's context. */
    public Object context;
    /** {@code data}: for a failed asynchronous AV insert, the address's index. */
    public long data;
    /** {@code err}: the positive {@link Errno}. */
    public int err;
    /** {@code prov_errno}: the provider's own error number. */
    public int provErrno;
    /** {@code err_data}: provider detail or reject data, or null. */
    public byte[] errData;

    /** An empty entry, to be filled by readError. */
    public EqErrEntry() {
    }

    /**
     * Fills every field at once; for providers writing error events.
     *
     * @param fid the object
     * @param context its context
     * @param data error data
     * @param err the positive errno
     * @param provErrno the provider errno
     * @param errData detail, or null
     * @return this entry
     */
    public EqErrEntry set(Object fid, Object context, long data, int err, int provErrno, byte[] errData) {
        this.fid = fid;
        this.context = context;
        this.data = data;
        this.err = err;
        this.provErrno = provErrno;
        this.errData = errData;
        return this;
    }

    /**
     * Copies every field of {@code o}.
     *
     * @param o the entry to copy
     */
    public void copyFrom(EqErrEntry o) {
        set(o.fid, o.context, o.data, o.err, o.provErrno, o.errData);
    }

    @Override
    public String toString() {
        return "EqErrEntry[fid=" + fid + ", err=" + Errno.name(err) + " (" + Errno.strerror(err) + "), data=" + data
                + (errData == null ? "" : ", errData=" + errData.length + "B") + "]";
    }
}
