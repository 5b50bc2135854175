package io.jfabric.bench;

import java.util.List;

/**
 * A transport bench/compare measures: jfabric's provider name and libfabric's, the endpoint type, and
 * which raw floor it is compared with.
 *
 * @param key          short name on the command line and in file names (tcp, rxm, shm)
 * @param jfabricProv  jfabric's -p argument
 * @param libfabricProv fi_pingpong's -p argument
 * @param epType       -e argument (msg or rdm)
 * @param floor        "sock" (loopback socket round trip) or "shm" (cache-line ping-pong)
 */
record Transport(String key, String jfabricProv, String libfabricProv, String epType, String floor) {
    static final List<Transport> ALL = List.of(
            new Transport("tcp", "tcp", "tcp", "msg", "sock"),
            new Transport("rxm", "tcp;ofi_rxm", "tcp;ofi_rxm", "rdm", "sock"),
            new Transport("shm", "shm", "shm", "rdm", "shm"));

    /**
     * The libfabric provider on the same native providers fi_pingpong uses: what the bridge adds to C. Not in
     * the default set; name them (--transports libfabric-tcp,libfabric-rxm,libfabric-shm).
     */
    static final List<Transport> LIBFABRIC = List.of(
            new Transport("libfabric-tcp", "libfabric:tcp", "tcp", "msg", "sock"),
            new Transport("libfabric-rxm", "libfabric:tcp;ofi_rxm", "tcp;ofi_rxm", "rdm", "sock"),
            new Transport("libfabric-shm", "libfabric:shm", "shm", "rdm", "shm"));

    /** The keys' spelling from before the provider was named libfabric, still accepted so that old commands run. */
    private static final String OLD_PREFIX = "ofi-";

    static Transport byKey(String key) {
        String k = key.startsWith(OLD_PREFIX) ? "libfabric-" + key.substring(OLD_PREFIX.length()) : key;
        for (Transport t : java.util.stream.Stream.concat(ALL.stream(), LIBFABRIC.stream()).toList()) {
            if (t.key.equals(k) || t.jfabricProv.equals(k)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown transport " + key
                + "; use tcp, rxm (tcp;ofi_rxm), shm, or the libfabric provider's libfabric-tcp, libfabric-rxm, "
                + "libfabric-shm");
    }

    String title() {
        return jfabricProv + " " + epType;
    }
}
