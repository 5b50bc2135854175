package io.jfabric;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors {@code struct fi_msg}: a reusable, caller-owned description of one message for the *msg
 * calls. Providers read it during the call only, so one instance may be reused for every post.
 */
public class Msg {
    public MemorySegment[] iov;
    public MemoryRegion[] desc;
    public int iovCount;
    /** Destination (send) or source filter (receive) fi_addr. */
    public long addr = Fabrics.ADDR_UNSPEC;
    public Object context;
    /** Remote CQ data, sent with FI_REMOTE_CQ_DATA. */
    public long data;

    public Msg() {
        this(4);
    }

    public Msg(int maxIov) {
        iov = new MemorySegment[maxIov];
        desc = new MemoryRegion[maxIov];
    }

    /** Sets a single-buffer message. */
    public Msg set(MemorySegment buf, MemoryRegion mr, long addr, Object context) {
        iov[0] = buf;
        desc[0] = mr;
        iovCount = 1;
        this.addr = addr;
        this.context = context;
        return this;
    }
}
