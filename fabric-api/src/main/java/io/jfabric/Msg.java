package io.jfabric;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors {@code struct fi_msg}: a reusable, caller-owned description of one message for the *msg
 * calls. Providers read it during the call only, so one instance may be reused for every post.
 */
public class Msg {
    /** {@code msg_iov}: the buffers. */
    public MemorySegment[] iov;
    /** {@code desc}: one MemoryRegion per buffer, or null when the mr_mode has no FI_MR_LOCAL. */
    public MemoryRegion[] desc;
    /** {@code iov_count}: how many entries of {@link #iov} are used. */
    public int iovCount;
    /** Destination (send) or source filter (receive) fi_addr. */
    public long addr = Fabrics.ADDR_UNSPEC;
    /** {@code context}: returned in the operation's completion. */
    public Object context;
    /** Remote CQ data, sent with FI_REMOTE_CQ_DATA. */
    public long data;

    /** A message with room for four buffers. */
    public Msg() {
        this(4);
    }

    /**
     * A message with room for {@code maxIov} buffers.
     *
     * @param maxIov the length of {@link #iov} and {@link #desc}
     */
    public Msg(int maxIov) {
        iov = new MemorySegment[maxIov];
        desc = new MemoryRegion[maxIov];
    }

    /**
     * Sets a single-buffer message.
     *
     * @param buf the buffer
     * @param mr its MemoryRegion, or null
     * @param addr the destination (send) or source filter (receive) fi_addr
     * @param context returned in the completion
     * @return this message
     */
    public Msg set(MemorySegment buf, MemoryRegion mr, long addr, Object context) {
        iov[0] = buf;
        desc[0] = mr;
        iovCount = 1;
        this.addr = addr;
        this.context = context;
        return this;
    }
}
