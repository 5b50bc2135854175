package io.jfabric;

/**
 * An event-queue entry: {@code fi_eq_entry} and {@code fi_eq_cm_entry} in one. {@code fid} is the
 * object the event is about (Endpoint, PassiveEndpoint, AddressVector, MemoryRegion); {@code info}
 * is set for CONNREQ; {@code cmData} holds the peer's connection data, if any.
 */
public class EqEntry {
    /** The {@link EqEvent} number. */
    public int event;
    /** {@code fid}: the object the event is about. */
    public Object fid;
    /** {@code context}: the context that object was opened or the operation posted with. */
    public Object context;
    /** {@code data}: event data (FI_AV_COMPLETE: how many addresses were inserted). */
    public long data;
    /** {@code info}: for FI_CONNREQ, the info to open the accepting endpoint with; null otherwise. */
    public FabricInfo info;
    /** The peer's connection data (connect, accept), or null. */
    public byte[] cmData;

    /** An empty entry, to be filled by a read. */
    public EqEntry() {
    }

    /**
     * Fills every field at once; for providers writing events.
     *
     * @param event the EqEvent number
     * @param fid the object
     * @param context its context
     * @param data event data
     * @param info the CONNREQ info, or null
     * @param cmData connection data, or null
     * @return this entry
     */
    public EqEntry set(int event, Object fid, Object context, long data, FabricInfo info, byte[] cmData) {
        this.event = event;
        this.fid = fid;
        this.context = context;
        this.data = data;
        this.info = info;
        this.cmData = cmData;
        return this;
    }

    /**
     * Copies every field of {@code o}.
     *
     * @param o the entry to copy
     */
    public void copyFrom(EqEntry o) {
        set(o.event, o.fid, o.context, o.data, o.info, o.cmData);
    }

    @Override
    public String toString() {
        return "EqEntry[" + EqEvent.toString(event) + ", fid=" + fid + ", data=" + data
                + (cmData == null ? "" : ", cmData=" + cmData.length + "B") + "]";
    }
}
