package io.jfabric.provider.libfabric;

import java.util.Map;
import java.util.Set;

/**
 * The one list of places where native libfabric 1.17 (as installed here) disagrees with its own man
 * pages, so the libfabric provider faithfully disagrees too. Each entry keeps its test: the test asserts the
 * deviating behaviour, so a libfabric that fixes it fails the test and the entry gets removed.
 * Mirrored in provider-libfabric/KNOWN-DEVIATIONS.md.
 */
final class KnownLibfabricDeviations {
    private KnownLibfabricDeviations() {
    }

    /** fi_cq(3): a truncated receive reports the cut-off byte count in olen. These report 0. */
    static final Set<String> TRUNCATION_OLEN_ZERO = Set.of("libfabric:tcp;ofi_rxm", "libfabric:shm");

    /** fi_msg(3): a message longer than the receive buffer completes with FI_ETRUNC. These truncate silently. */
    static final Set<String> TRUNCATION_SILENT = Set.of("libfabric:udp;ofi_rxd");

    /** Reason text per deviation, for messages. */
    static final Map<String, String> REASONS = Map.of(
            "TRUNCATION_OLEN_ZERO", "libfabric 1.17 rxm and shm write FI_ETRUNC completions with olen = 0",
            "TRUNCATION_SILENT", "libfabric 1.17 rxd completes a truncated receive successfully, len = buffer size");
}
