package io.jfabric;

import java.util.ArrayList;
import java.util.List;

/** fi_tostr-style printing of bit masks: names joined with " | ", unknown bits in hex. */
final class FlagNames {
    private final long[] bits;
    private final String[] names;

    FlagNames(Object... pairs) {
        bits = new long[pairs.length / 2];
        names = new String[pairs.length / 2];
        for (int i = 0; i < bits.length; i++) {
            bits[i] = ((Number) pairs[2 * i]).longValue();
            names[i] = (String) pairs[2 * i + 1];
        }
    }

    String format(long mask) {
        List<String> out = new ArrayList<>();
        long rest = mask;
        for (int i = 0; i < bits.length; i++) {
            if (bits[i] != 0 && (mask & bits[i]) == bits[i]) {
                out.add(names[i]);
                rest &= ~bits[i];
            }
        }
        if (rest != 0) {
            out.add("0x" + Long.toHexString(rest));
        }
        return String.join(" | ", out);
    }

    /** Parses "FI_MSG|FI_RMA" or "MSG,RMA" into a mask; throws on an unknown name. */
    long parse(String text, String kind) {
        long mask = 0;
        if (text == null || text.isBlank()) {
            return 0;
        }
        for (String raw : text.split("[|,]")) {
            String n = raw.trim().toUpperCase();
            if (n.isEmpty()) {
                continue;
            }
            if (!n.startsWith("FI_")) {
                n = "FI_" + n;
            }
            boolean found = false;
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(n)) {
                    mask |= bits[i];
                    found = true;
                    break;
                }
            }
            if (!found) {
                throw new FabricException(Errno.EINVAL, "unknown " + kind + " flag '" + raw.trim()
                        + "'; known: " + String.join(", ", names));
            }
        }
        return mask;
    }
}
