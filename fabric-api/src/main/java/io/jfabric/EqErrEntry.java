package io.jfabric;

/**
 * Mirrors {@code struct fi_eq_err_entry}. A rejected connect arrives as err=ECONNREFUSED with the
 * reject data in {@code errData}; a failed async AV insert carries the index in {@code data}.
 */
public class EqErrEntry {
    public Object fid;
    public Object context;
    public long data;
    public int err;
    public int provErrno;
    public byte[] errData;

    public EqErrEntry set(Object fid, Object context, long data, int err, int provErrno, byte[] errData) {
        this.fid = fid;
        this.context = context;
        this.data = data;
        this.err = err;
        this.provErrno = provErrno;
        this.errData = errData;
        return this;
    }

    public void copyFrom(EqErrEntry o) {
        set(o.fid, o.context, o.data, o.err, o.provErrno, o.errData);
    }

    @Override
    public String toString() {
        return "EqErrEntry[fid=" + fid + ", err=" + Errno.name(err) + " (" + Errno.strerror(err) + "), data=" + data
                + (errData == null ? "" : ", errData=" + errData.length + "B") + "]";
    }
}
