package io.jfabric.provider.verbs;

/** Something that owns an rdma_cm id and reacts to its events (an endpoint or a passive endpoint). */
interface CmEventListener {
    /**
     * One rdma_cm event for this listener's id. {@code id} is the event's id (for a connection request,
     * the new id; the listener is then the listening passive endpoint). {@code privateData} is the
     * user part of the event's private data (the length header removed), or null.
     */
    void onCmEvent(int event, int status, java.lang.foreign.MemorySegment id, byte[] privateData);
}
