package io.jfabric;

/**
 * An event-queue entry: {@code fi_eq_entry} and {@code fi_eq_cm_entry} in one. {@code fid} is the
 * object the event is about (Endpoint, PassiveEndpoint, AddressVector, MemoryRegion); {@code info}
 * is set for CONNREQ; {@code cmData} holds the peer's connection data, if any.
 */
public class EqEntry {
    public int event;
    public Object fid;
    public Object context;
    public long data;
    public FabricInfo info;
    public byte[] cmData;

    public EqEntry set(int event, Object fid, Object context, long data, FabricInfo info, byte[] cmData) {
        this.event = event;
        this.fid = fid;
        this.context = context;
        this.data = data;
        this.info = info;
        this.cmData = cmData;
        return this;
    }

    public void copyFrom(EqEntry o) {
        set(o.event, o.fid, o.context, o.data, o.info, o.cmData);
    }

    @Override
    public String toString() {
        return "EqEntry[" + EqEvent.toString(event) + ", fid=" + fid + ", data=" + data
                + (cmData == null ? "" : ", cmData=" + cmData.length + "B") + "]";
    }
}
