package io.jfabric;

/** Event numbers of {@code fi_eq_read}, libfabric's values. */
public final class EqEvent {
    /** {@code FI_NOTIFY}: an application or provider notification ({@link EqEntry#data}). */
    public static final int NOTIFY = 0;
    /** {@code FI_CONNREQ}: a connection request on a passive endpoint; {@link EqEntry#info} describes it. */
    public static final int CONNREQ = 1;
    /** {@code FI_CONNECTED}: a connect or accept finished. */
    public static final int CONNECTED = 2;
    /** {@code FI_SHUTDOWN}: the connection was closed (by either side). */
    public static final int SHUTDOWN = 3;
    /** {@code FI_MR_COMPLETE}: an asynchronous registration finished. */
    public static final int MR_COMPLETE = 4;
    /** {@code FI_AV_COMPLETE}: an asynchronous AV insert finished; {@link EqEntry#data} is how many succeeded. */
    public static final int AV_COMPLETE = 5;
    /** {@code FI_JOIN_COMPLETE}: a multicast join finished. */
    public static final int JOIN_COMPLETE = 6;
    /**
     * {@code FI_JF_PEER_FAILED}, a jfabric extension (libfabric has no such event; the value, "JF" in the
     * high half, is far outside libfabric's range): on an RDM endpoint bound to an EQ, the peer is known to
     * be gone (rxm: its connection reset, timed out or failed its keepalive; shm: its process exited or
     * closed its endpoint). {@link EqEntry#fid} is the endpoint, {@link EqEntry#data} the peer's fi_addr
     * (FI_ADDR_NOTAVAIL when it is not in the AV), {@link EqEntry#cmData} its address as fi_av_insert
     * takes it. Raised once per loss; the operations bound to that peer complete with FI_ECONNRESET.
     */
    public static final int PEER_FAILED = 0x4A46_0001;

    private EqEvent() {
    }

    /**
     * The C name of an event number.
     *
     * @param event an EqEvent number
     * @return e.g. {@code FI_CONNREQ}
     */
    public static String toString(int event) {
        return switch (event) {
            case NOTIFY -> "FI_NOTIFY";
            case CONNREQ -> "FI_CONNREQ";
            case CONNECTED -> "FI_CONNECTED";
            case SHUTDOWN -> "FI_SHUTDOWN";
            case MR_COMPLETE -> "FI_MR_COMPLETE";
            case AV_COMPLETE -> "FI_AV_COMPLETE";
            case JOIN_COMPLETE -> "FI_JOIN_COMPLETE";
            case PEER_FAILED -> "FI_JF_PEER_FAILED";
            default -> "FI_EVENT_" + event;
        };
    }
}
