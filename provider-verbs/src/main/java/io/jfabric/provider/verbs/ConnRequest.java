package io.jfabric.provider.verbs;

import java.lang.foreign.MemorySegment;

/**
 * The {@code handle} of a CONNREQ's info: the new rdma_cm id that librdmacm created for the request, on
 * the passive endpoint's EQ. An endpoint opened from the info adopts the id; a reject destroys it.
 */
record ConnRequest(MemorySegment id, VerbsEventQueue eq, VerbsPassiveEndpoint pep) {
    @Override
    public String toString() {
        return "ConnRequest[id=0x" + Long.toHexString(id.address()) + "]";
    }
}
