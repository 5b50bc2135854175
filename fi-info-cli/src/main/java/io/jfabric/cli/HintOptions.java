package io.jfabric.cli;

import io.jfabric.AddressFormat;
import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.MrMode;

/**
 * fi_info's hint parsing (util/info.c): '|'-separated, case-insensitive FI_ names, each list checked
 * against the names fi_info accepts. Errors carry fi_info's message ("Unrecognized capability: X").
 */
final class HintOptions {
    /** fi_info's str2cap names, in its order. */
    private static final String[] CAPS = {"FI_MSG", "FI_RMA", "FI_TAGGED", "FI_ATOMIC", "FI_MULTICAST",
        "FI_COLLECTIVE", "FI_READ", "FI_WRITE", "FI_RECV", "FI_SEND", "FI_REMOTE_READ", "FI_REMOTE_WRITE",
        "FI_MULTI_RECV", "FI_REMOTE_CQ_DATA", "FI_MORE", "FI_PEEK", "FI_TRIGGER", "FI_FENCE", "FI_SOURCE_ERR",
        "FI_LOCAL_COMM", "FI_REMOTE_COMM", "FI_SHARED_AV", "FI_RMA_EVENT", "FI_SOURCE", "FI_NAMED_RX_CTX",
        "FI_DIRECTED_RECV", "FI_HMEM"};
    private static final long[] CAP_BITS = {1L << 1, 1L << 2, 1L << 3, 1L << 4, 1L << 5, 1L << 6, 1L << 8,
        1L << 9, 1L << 10, 1L << 11, 1L << 12, 1L << 13, 1L << 16, 1L << 17, 1L << 18, 1L << 19, 1L << 20,
        1L << 21, 1L << 50, 1L << 51, 1L << 52, 1L << 53, 1L << 56, 1L << 57, 1L << 58, 1L << 59, 1L << 47};

    /** A bad option value: the message fi_info prints, and exit code EINVAL (22). */
    static final class BadValue extends Exception {
        BadValue(String message) {
            super(message);
        }
    }

    private HintOptions() {
    }

    /** fi_info's hints when any hint option is given: all modes and mr_modes accepted unless -m narrows. */
    static FabricInfo baseHints() {
        FabricInfo h = FabricInfo.hints();
        h.mode = ~0L;
        h.domainAttr.mode = ~0L;
        h.domainAttr.mrMode = ~(MrMode.BASIC | MrMode.SCALABLE);
        return h;
    }

    static long caps(String text) throws BadValue {
        long caps = 0;
        for (String tok : tokens(text)) {
            int i = indexOf(CAPS, tok);
            if (i < 0) {
                throw new BadValue("error: Unrecognized capability: " + tok);
            }
            caps |= CAP_BITS[i];
        }
        return caps;
    }

    static long mode(String text) throws BadValue {
        long mode = 0;
        for (String tok : tokens(text)) {
            String t = tok.trim();
            try {
                if (!t.regionMatches(true, 0, "FI_", 0, 3)) {
                    throw new IllegalArgumentException(t);
                }
                mode |= io.jfabric.Mode.parse(t);
            } catch (RuntimeException e) {
                throw new BadValue("error: Unrecognized mode: " + tok);
            }
        }
        return mode;
    }

    static EndpointType epType(String text) throws BadValue {
        for (EndpointType t : EndpointType.values()) {
            if (t.cName().equalsIgnoreCase(text.trim())) {
                return t;
            }
        }
        throw new BadValue("error: Unrecognized endpoint type: " + text);
    }

    static AddressFormat addrFormat(String text) throws BadValue {
        for (AddressFormat f : AddressFormat.values()) {
            if (f.cName().equalsIgnoreCase(text.trim())) {
                return f;
            }
        }
        throw new BadValue("error: Unrecognized address format: " + text);
    }

    private static String[] tokens(String text) {
        return text.split("\\|");
    }

    private static int indexOf(String[] names, String tok) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equalsIgnoreCase(tok.trim())) {
                return i;
            }
        }
        return -1;
    }
}
