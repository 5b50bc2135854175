package io.jfabric.conformance;

import java.util.List;

/**
 * Which native libfabric configurations (cases named "libfabric:...") the suite runs, chosen with
 * {@code -Djfabric.conformance.native}:
 * <ul>
 *   <li>{@code core} (the default): the four configurations issue 7 names, libfabric:tcp (FI_EP_MSG),
 *   libfabric:tcp;ofi_rxm, libfabric:shm and libfabric:udp;ofi_rxd (FI_EP_RDM);</li>
 *   <li>{@code all} (or {@code true}): every native configuration discovery finds (sockets, net, udp DGRAM
 *   as well; they have many more unclassified deviations);</li>
 *   <li>{@code none} (or {@code false}): no native configuration.</li>
 * </ul>
 */
final class NativeCases {
    static final String PROPERTY = "jfabric.conformance.native";
    /** A list, not a set: its order is the reason text's, which docs/conformance.md's matrix quotes (a set's varies per run). */
    static final List<String> CORE = List.of("libfabric:tcp/FI_EP_MSG", "libfabric:tcp;ofi_rxm/FI_EP_RDM",
            "libfabric:shm/FI_EP_RDM", "libfabric:udp;ofi_rxd/FI_EP_RDM");

    private NativeCases() {
    }

    /** Why the native case named in {@code displayName} does not run, or null when it runs. */
    static String whyNotRun(String displayName) {
        String mode = System.getProperty(PROPERTY, "core").trim().toLowerCase(java.util.Locale.ROOT);
        switch (mode) {
            case "none", "false" -> {
                return "native libfabric configurations are switched off (-D" + PROPERTY + "=" + mode + ")";
            }
            case "all", "true" -> {
                return null;
            }
            default -> {
                for (String id : CORE) {
                    if (displayName.contains(id)) {
                        return null;
                    }
                }
                return "only the native configurations " + CORE + " run by default; -D" + PROPERTY
                        + "=all runs this one too (its deviations from fi_*(3) are not classified)";
            }
        }
    }
}
