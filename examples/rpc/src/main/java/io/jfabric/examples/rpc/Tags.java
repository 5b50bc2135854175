package io.jfabric.examples.rpc;

/**
 * How the 64-bit tag carries an RPC: bit 48 says response, bit 49 marks the engine's own requests, bits 32..47 the RPC id, bits 0..31 the
 * request id (slot index in the low 16 bits, the slot's generation above it, so a late response to a
 * slot that has since been reused never matches the new request's receive).
 */
final class Tags {
    static final long RESPONSE = 1L << 48;
    /**
     * Marks the engine's own requests (hello, ping), which have receives of their own: a server whose
     * application requests fill every buffer still answers pings, so it is not declared dead.
     */
    static final long INTERNAL = 1L << 49;
    /** Receives of requests take every tag with the response and internal bits as posted. */
    static final long REQUEST_IGNORE = ~(RESPONSE | INTERNAL);

    private Tags() {
    }

    static long request(int rpcId, int requestId) {
        return ((long) (rpcId & 0xFFFF) << 32) | (requestId & 0xFFFF_FFFFL);
    }

    static long response(int rpcId, int requestId) {
        return RESPONSE | request(rpcId, requestId);
    }

    static int rpcId(long tag) {
        return (int) (tag >>> 32) & 0xFFFF;
    }

    static int requestId(long tag) {
        return (int) tag;
    }
}
