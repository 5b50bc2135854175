package io.jfabric;

/** Event numbers of {@code fi_eq_read}, libfabric's values. */
public final class EqEvent {
    public static final int NOTIFY = 0;
    public static final int CONNREQ = 1;
    public static final int CONNECTED = 2;
    public static final int SHUTDOWN = 3;
    public static final int MR_COMPLETE = 4;
    public static final int AV_COMPLETE = 5;
    public static final int JOIN_COMPLETE = 6;

    private EqEvent() {
    }

    public static String toString(int event) {
        return switch (event) {
            case NOTIFY -> "FI_NOTIFY";
            case CONNREQ -> "FI_CONNREQ";
            case CONNECTED -> "FI_CONNECTED";
            case SHUTDOWN -> "FI_SHUTDOWN";
            case MR_COMPLETE -> "FI_MR_COMPLETE";
            case AV_COMPLETE -> "FI_AV_COMPLETE";
            case JOIN_COMPLETE -> "FI_JOIN_COMPLETE";
            default -> "FI_EVENT_" + event;
        };
    }
}
