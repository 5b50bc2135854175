package io.jfabric;

/**
 * A completion entry: {@code fi_cq_tagged_entry} plus the source address of {@code fi_cq_readfrom}.
 * The caller owns and reuses entries; a read overwrites them. Which fields are set depends on the CQ's
 * {@link CqFormat}: CONTEXT sets context; MSG adds flags and len; DATA adds buf and data; TAGGED adds tag.
 */
public class CqEntry {
    /** {@code op_context}: the context the operation was posted with. */
    public Object context;
    /** Completion flags (OpFlags: SEND, RECV, MSG, TAGGED, RMA, READ, WRITE, REMOTE_CQ_DATA, MULTI_RECV ...). */
    public long flags;
    /** {@code len}: bytes received; 0 for transmit completions. */
    public long len;
    /** Address of the data received (FI_MULTI_RECV, buffered receives); 0 otherwise. */
    public long buf;
    /** {@code data}: remote CQ data, when flags has FI_REMOTE_CQ_DATA. */
    public long data;
    /** {@code tag}: the tag of a received tagged message. */
    public long tag;
    /** Sender's fi_addr, filled by readFrom; {@link Fabrics#ADDR_NOTAVAIL} when unknown. */
    public long srcAddr = Fabrics.ADDR_NOTAVAIL;

    /** An empty entry, to be filled by a read. */
    public CqEntry() {
    }

    /**
     * Fills every field at once; for providers writing completions.
     *
     * @param context the operation's context
     * @param flags OpFlags bits
     * @param len bytes
     * @param buf address of the data received, or 0
     * @param data remote CQ data
     * @param tag the tag
     * @return this entry
     */
    public CqEntry set(Object context, long flags, long len, long buf, long data, long tag) {
        this.context = context;
        this.flags = flags;
        this.len = len;
        this.buf = buf;
        this.data = data;
        this.tag = tag;
        return this;
    }

    /**
     * Copies every field of {@code o}, including srcAddr.
     *
     * @param o the entry to copy
     */
    public void copyFrom(CqEntry o) {
        context = o.context;
        flags = o.flags;
        len = o.len;
        buf = o.buf;
        data = o.data;
        tag = o.tag;
        srcAddr = o.srcAddr;
    }

    /**
     * An array of fresh entries.
     *
     * @param n how many
     * @return {@code n} entries
     */
    public static CqEntry[] array(int n) {
        CqEntry[] a = new CqEntry[n];
        for (int i = 0; i < n; i++) {
            a[i] = new CqEntry();
        }
        return a;
    }

    /**
     * The entry with fi_cq_tagged_entry's field names, its flags by name as fi_tostr(FI_TYPE_CQ_EVENT_FLAGS)
     * gives them.
     *
     * @return e.g. {@code fi_cq_tagged_entry[op_context: ctx, flags: [ FI_RECV, FI_TAGGED ], len: 64, ...]}
     */
    @Override
    public String toString() {
        return InfoPrinter.cqEntry(this);
    }
}
