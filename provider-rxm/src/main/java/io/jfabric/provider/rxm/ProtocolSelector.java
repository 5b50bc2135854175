package io.jfabric.provider.rxm;

/**
 * Chooses how one send crosses the wire, as libfabric's {@code rxm_send_common} does: up to the eager
 * limit in one packet (a core tagged message without rxm's header when dynamic receive buffers are on
 * and the message is tagged), up to the SAR limit in buffer-sized segments, and above that a
 * rendezvous: the receiver reads the sender's registered buffer (or, in the write variant, the sender
 * writes into the receiver's). One instance per endpoint; {@link #select} allocates nothing.
 */
public final class ProtocolSelector {
    /** Eager send as a core tagged message with no rxm header (libfabric 1.13-1.17 dyn_rbuf path). */
    public static final int RAW_TAGGED = 0;
    /** Eager send: rxm header + payload in one core message. */
    public static final int EAGER = 1;
    /** Segmentation and reassembly through buffer_size segments. */
    public static final int SAR = 2;
    /** Rendezvous; the receiver issues RMA reads. */
    public static final int RNDV_READ = 3;
    /** Rendezvous; the sender issues RMA writes after the receiver's rndv_wr_data. */
    public static final int RNDV_WRITE = 4;

    private final long eagerLimit;
    private final long sarLimit;
    private final long bufferSize;
    private final boolean dynRbuf;
    private final boolean rndvWrite;
    private final int coreIovLimit;

    public ProtocolSelector(long bufferSize, long eagerLimit, long sarLimit, boolean dynRbuf, boolean rndvWrite,
                            int coreIovLimit) {
        this.bufferSize = bufferSize;
        this.eagerLimit = eagerLimit;
        this.sarLimit = sarLimit;
        this.dynRbuf = dynRbuf;
        this.rndvWrite = rndvWrite;
        this.coreIovLimit = coreIovLimit;
    }

    /**
     * @param tagged   whether this is a tagged send
     * @param length   total message bytes
     * @param iovCount number of application buffers
     */
    public int select(boolean tagged, long length, int iovCount) {
        if (length <= eagerLimit) {
            return dynRbuf && tagged && iovCount <= coreIovLimit ? RAW_TAGGED : EAGER;
        }
        if (length <= sarLimit) {
            return SAR;
        }
        return rendezvous();
    }

    /** The rendezvous variant this endpoint uses, whatever the size (for FI_DELIVERY_COMPLETE sends). */
    public int rendezvous() {
        return rndvWrite ? RNDV_WRITE : RNDV_READ;
    }

    /** Number of SAR segments for {@code length} bytes (rxm_ep_sar_calc_segs_cnt). */
    public long segments(long length) {
        return (length + bufferSize - 1) / bufferSize;
    }

    public long eagerLimit() {
        return eagerLimit;
    }

    public long sarLimit() {
        return sarLimit;
    }

    public long bufferSize() {
        return bufferSize;
    }

    public boolean dynRbuf() {
        return dynRbuf;
    }

    public static String name(int protocol) {
        return switch (protocol) {
            case RAW_TAGGED -> "eager (core tagged, no rxm header)";
            case EAGER -> "eager";
            case SAR -> "SAR";
            case RNDV_READ -> "rendezvous (read)";
            case RNDV_WRITE -> "rendezvous (write)";
            default -> "protocol " + protocol;
        };
    }
}
