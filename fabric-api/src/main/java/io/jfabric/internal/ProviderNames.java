package io.jfabric.internal;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Provider-name rules of src/fabric.c: utility names start with "ofi_", layered names read
 * "core;utility", libfabric's default provider order, and which cores utilities skip unless named.
 * jfabric's bridge reports native providers as "libfabric:&lt;name&gt;"; those belong to the provider
 * "libfabric" and come after every other provider.
 */
final class ProviderNames {
    /** libfabric 1.17's ofi_ordered_provs_init order. */
    static final List<String> DEFAULT_ORDER = List.of("efa", "psm2", "opx", "psm", "usnic", "gni", "bgq", "verbs",
            "netdir", "psm3", "ofi_rxm", "ofi_rxd", "shm", "udp", "tcp", "sockets", "net");
    /** The libfabric bridge provider's name; its infos go last. */
    static final String BRIDGE = "libfabric";
    /** Cores a utility layers over only when asked by name (disable_layering), plus the bridge. */
    private static final List<String> NO_LAYERING = List.of("sockets", "shm", "efa", "psm3", BRIDGE);

    /** jfabric's own providers and the Maven artifact (io.jfabric group) that brings each one. */
    private static final Map<String, String> ARTIFACTS = Map.of("tcp", "provider-tcp", "shm", "provider-shm",
            "ofi_rxm", "provider-rxm", "verbs", "provider-verbs", BRIDGE, "provider-libfabric");

    private ProviderNames() {
    }

    /**
     * The artifact that brings the provider a given name designates ("libfabric:tcp" -&gt; provider-libfabric),
     * or null when jfabric has no provider of that name.
     */
    static String artifact(String given) {
        String n = given.toLowerCase(Locale.ROOT);
        int colon = n.indexOf(':');
        return ARTIFACTS.get(colon > 0 ? n.substring(0, colon) : n);
    }

    static boolean isUtilityName(String name) {
        return name.toLowerCase(Locale.ROOT).startsWith("ofi_");
    }

    /** Rank in libfabric's default order; unknown names after known ones, the bridge last. */
    static int rank(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.equals(BRIDGE)) {
            return DEFAULT_ORDER.size() + 2;
        }
        int i = DEFAULT_ORDER.indexOf(n);
        return i < 0 ? DEFAULT_ORDER.size() + 1 : i;
    }

    static boolean layeringDisabled(String name, boolean utility) {
        return utility || NO_LAYERING.contains(name.toLowerCase(Locale.ROOT));
    }

    /** True when {@code name} is "core;..." (or the bridge's "core:...") over {@code core}. */
    static boolean isLayeredUnder(String name, String core) {
        int len = core.length();
        return name.length() > len && name.regionMatches(true, 0, core, 0, len)
                && (name.charAt(len) == ';' || name.charAt(len) == ':');
    }

    /** Whether a name given in hints or a filter designates this provider ("libfabric:tcp" designates "libfabric"). */
    static boolean designates(String given, String providerName) {
        if (given.equalsIgnoreCase(providerName)) {
            return true;
        }
        int colon = given.indexOf(':');
        return colon > 0 && given.substring(0, colon).equalsIgnoreCase(providerName);
    }

    /**
     * The provider that opens an info of this name: the bridge for "libfabric:...", else the utility of
     * a layered name ("tcp;ofi_rxm" opens through ofi_rxm), else the name itself.
     */
    static String owner(String infoName) {
        String first = infoName.split(";", 2)[0];
        int colon = first.indexOf(':');
        if (colon > 0) {
            return first.substring(0, colon);
        }
        int semi = infoName.lastIndexOf(';');
        return semi < 0 ? infoName : infoName.substring(semi + 1);
    }
}
