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
     * The libfabric bridge on the same native providers fi_pingpong uses: what the bridge adds to C. Not in
     * the default set; name them (--transports ofi-tcp,ofi-rxm,ofi-shm).
     */
    static final List<Transport> BRIDGE = List.of(
            new Transport("ofi-tcp", "libfabric:tcp", "tcp", "msg", "sock"),
            new Transport("ofi-rxm", "libfabric:tcp;ofi_rxm", "tcp;ofi_rxm", "rdm", "sock"),
            new Transport("ofi-shm", "libfabric:shm", "shm", "rdm", "shm"));

    static Transport byKey(String key) {
        for (Transport t : java.util.stream.Stream.concat(ALL.stream(), BRIDGE.stream()).toList()) {
            if (t.key.equals(key) || t.jfabricProv.equals(key)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown transport " + key + "; use tcp, rxm (tcp;ofi_rxm), shm, or the bridge's ofi-tcp, ofi-rxm, ofi-shm");
    }

    String title() {
        return jfabricProv + " " + epType;
    }
}
