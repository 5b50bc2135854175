package io.jfabric;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors the {@code struct fid_ep} that {@code fi_srx_context} returns: a shared receive context. Receives are
 * posted to it once and taken by a message arriving on any endpoint bound to it ({@link Endpoint#bind(SharedRxContext)}
 * before {@link Endpoint#enable()}, the endpoint's info having {@code ep_attr.rx_ctx_cnt} FI_SHARED_CONTEXT).
 * As fi_endpoint(3) says, the context has no CQ of its own: a receive completes on the receive CQ of the endpoint the
 * message arrived on, and all connectionless endpoints bound to one context share one address vector.
 *
 * <p>The calls are an endpoint's receive side, with its return values ({@link Endpoint#recv} and the rest): 0 or a
 * negative {@link Errno}, never an exception on the data path. {@code srcAddr} restricts matching only where the
 * endpoints have FI_DIRECTED_RECV. Closing the context while an endpoint is bound to it fails with EBUSY; closing an
 * endpoint leaves the context's posted receives posted for the others.
 */
public interface SharedRxContext extends FabricObject {
    /**
     * {@code fi_recv} on the shared context.
     *
     * @param buf the buffer; its {@code byteSize()} is the length in bytes
     * @param desc the buffer's {@link MemoryRegion}, or null when the domain's mr_mode has no FI_MR_LOCAL
     * @param srcAddr the sender to match, FI_ADDR_UNSPEC for any (with FI_DIRECTED_RECV)
     * @param context comes back in the completion, or in its error completion; the handle for {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL for a bad argument,
     *     -FI_EOPBADSTATE before a bound endpoint is enabled
     */
    int recv(MemorySegment buf, MemoryRegion desc, long srcAddr, Object context);

    /**
     * {@code fi_recvv} on the shared context.
     *
     * @param iov the buffers, scattered in order
     * @param desc one MemoryRegion per buffer, or null when the mr_mode has no FI_MR_LOCAL
     * @param count how many entries of {@code iov} and {@code desc} to use, at most rx iov_limit
     * @param srcAddr the sender to match, as in {@link #recv}
     * @param context as in {@link #recv}
     * @return as {@link #recv}
     */
    int recvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, Object context);

    /**
     * {@code fi_recvmsg} on the shared context.
     *
     * @param msg the description; its addr is the source to match
     * @param flags OpFlags for this receive alone, instead of the rx op_flags
     * @return as {@link #recv}
     */
    int recvmsg(Msg msg, long flags);

    /**
     * {@code fi_trecv} on the shared context.
     *
     * @param buf the buffer; its {@code byteSize()} is the length in bytes
     * @param desc the buffer's {@link MemoryRegion}, or null
     * @param srcAddr the sender to match, as in {@link #recv}
     * @param tag the tag to match
     * @param ignore tag bits this receive ignores
     * @param context as in {@link #recv}
     * @return as {@link #recv}
     */
    int trecv(MemorySegment buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object context);

    /**
     * {@code fi_trecvv} on the shared context.
     *
     * @param iov the buffers, scattered in order
     * @param desc one MemoryRegion per buffer, or null
     * @param count how many entries of {@code iov} and {@code desc} to use
     * @param srcAddr the sender to match, as in {@link #recv}
     * @param tag the tag to match
     * @param ignore tag bits this receive ignores
     * @param context as in {@link #recv}
     * @return as {@link #recv}
     */
    int trecvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long tag, long ignore,
               Object context);

    /**
     * {@code fi_trecvmsg} on the shared context.
     *
     * @param msg the description; addr, tag and ignore as in {@link #trecv}
     * @param flags OpFlags for this receive alone
     * @return as {@link #recv}
     */
    int trecvmsg(TaggedMsg msg, long flags);

    /**
     * {@code fi_cancel} on the shared context: the posted receive with {@code context} completes with ECANCELED on
     * the receive CQ of the context's endpoints.
     *
     * @param context the context the receive was posted with
     * @return 0, or -FI_ENOENT when no posted receive has that context
     */
    int cancel(Object context);
}
