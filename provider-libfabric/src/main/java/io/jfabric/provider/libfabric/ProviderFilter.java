package io.jfabric.provider.libfabric;

import java.util.ArrayList;
import java.util.List;

/**
 * FI_PROVIDER as native libfabric must see it. jfabric's FI_PROVIDER names Java providers ("tcp") and
 * libfabric: providers ("libfabric:tcp") side by side, and native libfabric reads the same variable when
 * it initialises; left alone, "libfabric:shm" would match no native provider and a Java-only list
 * would hide native ones for no reason. The libfabric provider therefore hands native libfabric only the native
 * part: libfabric: names lose their prefix, Java names are dropped, and a list that names the whole
 * provider ("libfabric") or no libfabric: provider at all becomes no native filter (jfabric's discovery
 * applies the full list to the info names).
 */
final class ProviderFilter {
    private ProviderFilter() {
    }

    /** The FI_PROVIDER value for native libfabric, or null for none. */
    static String translate(String jfabricValue) {
        if (jfabricValue == null || jfabricValue.isBlank()) {
            return null;
        }
        String v = jfabricValue.trim();
        boolean exclude = v.startsWith("^");
        if (exclude) {
            v = v.substring(1);
        }
        List<String> natives = new ArrayList<>();
        for (String part : v.split(",")) {
            String p = part.trim();
            if (p.equals(LibfabricProvider.NAME)) {
                // the whole provider: included means no native filter, excluded means discovery drops it all
                return null;
            }
            if (p.startsWith(InfoMapper.PREFIX) && p.length() > InfoMapper.PREFIX.length()) {
                natives.add(p.substring(InfoMapper.PREFIX.length()));
            }
        }
        if (natives.isEmpty()) {
            return null;
        }
        return (exclude ? "^" : "") + String.join(",", natives);
    }
}
