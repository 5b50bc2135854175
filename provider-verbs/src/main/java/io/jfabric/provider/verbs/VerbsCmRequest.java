package io.jfabric.provider.verbs;

import java.lang.foreign.MemorySegment;

/**
 * The {@code handle} of a CONNREQ's info: the new rdma_cm id that librdmacm created for the request, on
 * the passive endpoint's EQ. An endpoint opened from the info adopts the id (and destroys it when it
 * closes); a reject destroys it. Either happens once: a reject after an endpoint took the id, or a second
 * reject, is refused instead of handing librdmacm a destroyed id.
 */
final class VerbsCmRequest {
    private final MemorySegment id;
    private final VerbsEq eq;
    private final VerbsPassiveEndpoint pep;
    private boolean taken;

    VerbsCmRequest(MemorySegment id, VerbsEq eq, VerbsPassiveEndpoint pep) {
        this.id = id;
        this.eq = eq;
        this.pep = pep;
    }

    MemorySegment id() {
        return id;
    }

    VerbsEq eq() {
        return eq;
    }

    VerbsPassiveEndpoint pep() {
        return pep;
    }

    /** Marks the id as owned by an endpoint or destroyed by a reject; false when that already happened. */
    synchronized boolean take() {
        if (taken) {
            return false;
        }
        taken = true;
        return true;
    }

    @Override
    public String toString() {
        return "VerbsCmRequest[id=0x" + Long.toHexString(id.address()) + (taken ? ", taken" : "") + "]";
    }
}
