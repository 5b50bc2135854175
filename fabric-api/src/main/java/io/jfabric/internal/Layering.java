package io.jfabric.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * libfabric's {@code ofi_layering_ok} over the hints' prov_name split at ';'. With two names or
 * fewer the order is agnostic ("ofi_rxm;tcp" == "tcp;ofi_rxm"): naming both returns only that layering,
 * a utility alone layers over every core that allows it, a core alone returns the core plus the
 * utilities over it. With more names the rightmost decides. Trailing "^name" entries exclude.
 * jfabric addition: a name starting "libfabric:" designates the bridge for the whole layered name.
 */
final class Layering {
    private Layering() {
    }

    /** The hints' prov_name as a list (empty for none). */
    static List<String> split(String provName) {
        List<String> out = new ArrayList<>();
        if (provName != null) {
            for (String s : provName.split(";")) {
                if (!s.isBlank()) {
                    out.add(s.trim());
                }
            }
        }
        return out;
    }

    /**
     * @param coreOnly         true for a utility's lookup of cores (OFI_CORE_PROV_ONLY)
     * @param layeringDisabled tells whether a named provider refuses layering unless named
     */
    static boolean ok(String provider, boolean utility, List<String> names, boolean coreOnly,
                      java.util.function.Predicate<String> layeringDisabled) {
        int count = names.size();
        for (int i = count - 1; i >= 0 && names.get(i).startsWith("^"); i--) {
            if (names.get(i).substring(1).equalsIgnoreCase(provider)) {
                return false;
            }
            count = i;
        }
        if (coreOnly) {
            if (utility) {
                return false;
            }
            if (count == 0 && layeringDisabled.test(provider)) {
                return false;
            }
        }
        if (count == 0) {
            return true;
        }
        String first = names.get(0);
        if (first.indexOf(':') > 0) {
            // "libfabric:tcp;ofi_rxm" names a native layering: the bridge alone answers for the whole name
            return ProviderNames.designates(first, provider);
        }
        if (count == 1 && utility && !ProviderNames.isUtilityName(first)) {
            return !layeringDisabled.test(first);
        }
        String target = count == 2 && ProviderNames.isUtilityName(first) && !ProviderNames.isUtilityName(names.get(1))
                ? first : names.get(count - 1);
        return ProviderNames.designates(target, provider);
    }

    /** ofi_exclude_prov_name: the core lookup's names, without the utility and with "^utility" appended. */
    static List<String> forCores(List<String> names, String utility) {
        List<String> out = new ArrayList<>();
        for (String n : names) {
            if (!n.equalsIgnoreCase(utility)) {
                out.add(n);
            }
        }
        out.add("^" + utility);
        return out;
    }
}
