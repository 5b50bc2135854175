package io.jfabric;

/**
 * Mirrors {@code struct fi_msg_atomic}: local operand buffers (each a whole number of elements) plus remote
 * {@link AtomicIoc}s, the datatype and the operation. The fetch and compare msg forms take their result and
 * compare buffers as separate arguments, as fi_fetch_atomicmsg and fi_compare_atomicmsg do.
 */
public class AtomicMsg extends Msg {
    /** {@code rma_iov}: the remote arrays. */
    public AtomicIoc[] rmaIoc;
    /** {@code rma_iov_count}: how many entries of {@link #rmaIoc} are used. */
    public int rmaIocCount;
    /** {@code datatype}. */
    public AtomicDatatype datatype;
    /** {@code op}. */
    public AtomicOp op;

    /** An atomic message with room for four local and four remote buffers. */
    public AtomicMsg() {
        this(4);
    }

    /**
     * An atomic message with room for {@code maxIov} local and remote buffers.
     *
     * @param maxIov the length of the iov and rmaIoc arrays
     */
    public AtomicMsg(int maxIov) {
        super(maxIov);
        rmaIoc = new AtomicIoc[maxIov];
        for (int i = 0; i < maxIov; i++) {
            rmaIoc[i] = new AtomicIoc();
        }
    }
}
