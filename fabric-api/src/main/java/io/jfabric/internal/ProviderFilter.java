package io.jfabric.internal;

import java.util.Arrays;
import java.util.List;

/**
 * libfabric's FI_PROVIDER filter (src/fabric.c: ofi_create_filter, ofi_apply_prov_init_filter,
 * ofi_apply_prov_post_filter): a comma list, a leading '^' negating the whole list.
 *
 * <p>Before discovery, a positive filter hides core providers it does not name (naming "tcp;ofi_rxm"
 * keeps core tcp); utility providers stay, so they layer over the named cores. A negative filter hides
 * every provider it names. After discovery, a positive filter keeps infos named exactly, plus layered
 * infos over a named core ("tcp" keeps "tcp;ofi_rxm"); a negative one drops those.
 * jfabric addition: the bridge's names ("libfabric:shm") count as layered under "libfabric".
 *
 * @param spec    the filter text as given, for messages; null when there is no filter
 * @param names   the names, or null when there is no filter
 * @param negated whether the list excludes
 */
record ProviderFilter(String spec, List<String> names, boolean negated) {
    static final ProviderFilter NONE = new ProviderFilter(null, null, false);

    static ProviderFilter parse(String spec) {
        if (spec == null || spec.isBlank()) {
            return NONE;
        }
        String s = spec.trim();
        boolean neg = s.startsWith("^");
        if (neg) {
            s = s.substring(1);
        }
        List<String> names = Arrays.stream(s.split(",")).map(String::trim).filter(n -> !n.isEmpty()).toList();
        return new ProviderFilter(spec.trim(), names, neg);
    }

    boolean active() {
        return names != null;
    }

    /** ofi_getinfo_filter: true when the provider is hidden from discovery. */
    boolean hides(String providerName, boolean utility) {
        if (!active() || (!negated && utility)) {
            return false;
        }
        if (contains(providerName)) {
            return negated;
        }
        if (negated) {
            return false;
        }
        for (String n : names) {
            if (ProviderNames.isLayeredUnder(n, providerName)) {
                return false;
            }
        }
        return true;
    }

    /** ofi_apply_prov_post_filter: true when a result info of this name is dropped. */
    boolean drops(String infoName) {
        if (!active() || infoName == null) {
            return false;
        }
        if (contains(infoName)) {
            return negated;
        }
        for (String n : names) {
            if (ProviderNames.isLayeredUnder(infoName, n)) {
                return negated;
            }
        }
        return !negated;
    }

    private boolean contains(String name) {
        for (String n : names) {
            if (n.equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }
}
