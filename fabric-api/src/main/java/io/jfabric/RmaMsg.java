package io.jfabric;

/** Mirrors {@code struct fi_msg_rma}: local iovs plus remote {@link RmaIov}s. */
public class RmaMsg extends Msg {
    /** {@code rma_iov}: the remote buffers. */
    public RmaIov[] rmaIov;
    /** {@code rma_iov_count}: how many entries of {@link #rmaIov} are used. */
    public int rmaIovCount;

    /** An RMA message with room for four local and four remote buffers. */
    public RmaMsg() {
        this(4);
    }

    /**
     * An RMA message with room for {@code maxIov} local and remote buffers.
     *
     * @param maxIov the length of the iov and rmaIov arrays
     */
    public RmaMsg(int maxIov) {
        super(maxIov);
        rmaIov = new RmaIov[maxIov];
        for (int i = 0; i < maxIov; i++) {
            rmaIov[i] = new RmaIov();
        }
    }
}
