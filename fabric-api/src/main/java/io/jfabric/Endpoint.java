package io.jfabric;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors {@code struct fid_ep}: an active endpoint, with libfabric's control calls (fi_ep_bind,
 * fi_enable, fi_connect, fi_accept, fi_shutdown, fi_getname/fi_setname/fi_getpeer, fi_getopt/fi_setopt)
 * and data-path calls (fi_msg(3), fi_tagged(3), fi_rma(3), fi_cancel).
 *
 * <p>Data-path methods return 0 or a negative {@link Errno} and never throw for an expected outcome:
 * {@code -FI_EAGAIN} when a queue is full or a connection is still being set up (drive progress by reading
 * the CQ, then post again); {@code -FI_EINVAL} for a bad argument; {@code -FI_EMSGSIZE} over max_msg_size,
 * or inject_size for the inject forms; {@code -FI_ENOTCONN} on an FI_EP_MSG endpoint that is not
 * connected; {@code -FI_ENOSYS} for a call the provider does not offer. Sizes are in bytes. A failure
 * after the call returned 0 arrives as an error completion ({@link CqErrEntry}). Each operation's
 * {@code context} comes back in its completion, or in its error completion. {@code desc} is the buffer's
 * {@link MemoryRegion}, or null where the domain's mr_mode does not need FI_MR_LOCAL.
 *
 * <p>Addresses: {@code destAddr}/{@code srcAddr} are fi_addr values of the bound AV (ignored when
 * connected); a receive's {@code srcAddr} restricts matching only with FI_DIRECTED_RECV. An RMA call's
 * {@code addr} is an offset into the target region, or the target's virtual address when the domain's
 * mr_mode has FI_MR_VIRT_ADDR. Whether a completed write is visible to a later send: see {@link #write}.
 *
 * <p>Differences from libfabric: buffers are {@link MemorySegment}s (their size is the length);
 * iov forms take arrays plus a count; the *msg forms take reusable {@link Msg}/{@link TaggedMsg}/
 * {@link RmaMsg} objects that the caller owns.
 */
public interface Endpoint extends FabricObject, AtomicOps {

    // ---- control path -------------------------------------------------------------------------

    /**
     * {@code fi_ep_bind} of a completion queue, one per direction.
     *
     * @param cq the queue
     * @param flags BindFlags: TRANSMIT and/or RECV, optionally SELECTIVE_COMPLETION
     * @throws FabricException EINVAL for a second CQ in the same direction or unknown flags
     */
    void bind(CompletionQueue cq, long flags);

    /**
     * {@code fi_ep_bind} of an event queue, which receives connection events (FI_EP_MSG) and asynchronous AV
     * events.
     *
     * @param eq the queue
     */
    void bind(EventQueue eq);

    /**
     * {@code fi_ep_bind} of an address vector; a connectionless endpoint needs one before {@link #enable()}.
     *
     * @param av the address vector
     * @throws FabricException EINVAL if the AV belongs to another domain
     */
    void bind(AddressVector av);

    /**
     * {@code fi_ep_bind} of a counter.
     *
     * @param counter the counter
     * @param flags BindFlags: TRANSMIT, RECV, READ, WRITE, REMOTE_READ, REMOTE_WRITE
     * @throws FabricException EINVAL for unknown flags
     */
    void bind(Counter counter, long flags);

    /**
     * {@code fi_ep_bind} of a shared receive context ({@link Domain#srxContext}) before {@link #enable()}: the
     * endpoint then takes its receives from the context, and receives posted on the endpoint go to the context.
     *
     * @param srx the context, from this endpoint's domain
     * @throws FabricException ENOSYS where the provider has no shared receive contexts, EINVAL for a context of
     *     another domain or after enable
     */
    default void bind(SharedRxContext srx) {
        throw new FabricException(Errno.ENOSYS, "this endpoint takes no shared receive context (fi_srx_context)");
    }

    /**
     * {@code fi_enable}: makes the endpoint usable once its CQs, and its AV (connectionless) or EQ (FI_EP_MSG),
     * are bound.
     *
     * @throws FabricException ENOCQ without a CQ for a direction it needs, ENOAV without an AV (FI_EP_RDM,
     *     FI_EP_DGRAM), ENOEQ without an EQ (FI_EP_MSG)
     */
    void enable();

    /**
     * {@code fi_connect} (FI_EP_MSG): asynchronous; FI_CONNECTED, or an error entry (ECONNREFUSED with the
     * reject data), arrives on the bound EQ.
     *
     * @param addr the passive endpoint's address, in the info's addr_format
     * @param data connection data for the peer (up to the CM data size), or null
     * @throws FabricException ENOSYS on a connectionless endpoint, ENOEQ without an EQ, EINVAL for too much
     *     data
     */
    void connect(byte[] addr, byte[] data);

    /**
     * {@code fi_accept} of the CONNREQ this endpoint was opened from; FI_CONNECTED follows on the bound EQ.
     *
     * @param data connection data for the peer (up to the CM data size), or null
     * @throws FabricException ENOSYS on a connectionless endpoint, ENOEQ without an EQ
     */
    void accept(byte[] data);

    /**
     * {@code fi_shutdown}: closes the connection; the peer sees FI_SHUTDOWN on its EQ.
     *
     * @param flags 0
     * @throws FabricException ENOSYS on a connectionless endpoint
     */
    void shutdown(long flags);

    /**
     * {@code fi_getname}.
     *
     * @return this endpoint's address, in the info's addr_format
     */
    byte[] getName();

    /**
     * {@code fi_setname}: sets the source address before the endpoint is enabled.
     *
     * @param addr the address, in the info's addr_format
     * @throws FabricException EINVAL for a malformed address
     */
    void setName(byte[] addr);

    /**
     * {@code fi_getpeer}.
     *
     * @return the connected peer's address
     * @throws FabricException ENOTCONN when not connected, as a connectionless endpoint never is
     */
    byte[] getPeer();

    /**
     * {@code fi_getopt} at FI_OPT_ENDPOINT.
     *
     * @param option the option
     * @return its value (sizes in bytes)
     * @throws FabricException ENOPROTOOPT for an option the provider does not have
     */
    long getOpt(EndpointOption option);

    /**
     * {@code fi_setopt} at FI_OPT_ENDPOINT.
     *
     * @param option the option
     * @param value its value (sizes in bytes)
     * @throws FabricException ENOPROTOOPT for an option the provider does not have, EINVAL for a value out of
     *     range
     */
    void setOpt(EndpointOption option, long value);

    /**
     * {@code fi_cancel}: cancels the queued operation posted with {@code context}; it completes with an error
     * entry, err ECANCELED.
     *
     * @param context the context the operation was posted with
     * @return 0, or a negative errno (-FI_ENOENT when no queued operation has that context)
     */
    int cancel(Object context);

    // ---- messages (fi_msg(3)) -----------------------------------------------------------------

    /**
     * {@code fi_send}.
     *
     * @param buf the buffer; its {@code byteSize()} is the length in bytes
     * @param desc the buffer's {@link MemoryRegion}, or null when the domain's mr_mode has no FI_MR_LOCAL
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full (progress and retry),
     *     -FI_EINVAL for a bad argument, -FI_EMSGSIZE over ep_attr.max_msg_size, -FI_ENOSYS when the provider
     *     lacks the call
     */
    default int send(MemorySegment buf, MemoryRegion desc, long destAddr, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_sendv}.
     *
     * @param iov the buffers, gathered (send) or scattered (receive) in order
     * @param desc one MemoryRegion per buffer, or null when the mr_mode has no FI_MR_LOCAL
     * @param count how many entries of {@code iov} and {@code desc} to use, at most the tx/rx iov_limit
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full (progress and retry),
     *     -FI_EINVAL for a bad argument, -FI_EMSGSIZE over ep_attr.max_msg_size, -FI_ENOSYS when the provider
     *     lacks the call
     */
    default int sendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_sendmsg}.
     *
     * @param msg the description: iov, desc, iovCount, addr, context and, with FI_REMOTE_CQ_DATA, data; read
     *     during the call only, so it may be reused at once
     * @param flags OpFlags for this operation alone (FI_COMPLETION, FI_INJECT, FI_REMOTE_CQ_DATA,
     *     FI_DELIVERY_COMPLETE, FI_MORE ...), instead of the tx/rx op_flags
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full (progress and retry),
     *     -FI_EINVAL for a bad argument, -FI_EMSGSIZE over ep_attr.max_msg_size, -FI_ENOSYS when the provider
     *     lacks the call
     */
    default int sendmsg(Msg msg, long flags) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_inject}: the buffer may be reused as soon as the call returns; no success completion.
     *
     * @param buf the data, at most tx_attr.inject_size bytes
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @return 0 when sent, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EMSGSIZE over
     *     tx_attr.inject_size, -FI_EINVAL, -FI_ENOSYS
     */
    default int inject(MemorySegment buf, long destAddr) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_senddata}: a send that carries remote CQ data.
     *
     * @param buf the buffer; its {@code byteSize()} is the length in bytes
     * @param desc the buffer's {@link MemoryRegion}, or null when the domain's mr_mode has no FI_MR_LOCAL
     * @param data remote CQ data (up to domain_attr.cq_data_size bytes), delivered in the target's completion
     *     with FI_REMOTE_CQ_DATA
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full (progress and retry),
     *     -FI_EINVAL for a bad argument, -FI_EMSGSIZE over ep_attr.max_msg_size, -FI_ENOSYS when the provider
     *     lacks the call
     */
    default int senddata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_injectdata}: an inject that carries remote CQ data.
     *
     * @param buf the data, at most tx_attr.inject_size bytes
     * @param data remote CQ data (up to domain_attr.cq_data_size bytes), delivered in the target's completion
     *     with FI_REMOTE_CQ_DATA
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @return 0 when sent, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EMSGSIZE over
     *     tx_attr.inject_size, -FI_EINVAL, -FI_ENOSYS
     */
    default int injectdata(MemorySegment buf, long data, long destAddr) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_recv}: posts a buffer for one untagged message. A longer message completes with an error entry,
     * err FI_ETRUNC.
     *
     * @param buf the buffer; its {@code byteSize()} is the length in bytes
     * @param desc the buffer's {@link MemoryRegion}, or null when the domain's mr_mode has no FI_MR_LOCAL
     * @param srcAddr the sender to match: FI_ADDR_UNSPEC ({@link Fabrics#ADDR_UNSPEC}) for any; with
     *     FI_DIRECTED_RECV, an fi_addr restricts the receive to that sender, without it the address is ignored
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL for a bad
     *     argument, -FI_ENOSYS when the provider lacks the call
     */
    default int recv(MemorySegment buf, MemoryRegion desc, long srcAddr, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_recvv}.
     *
     * @param iov the buffers, gathered (send) or scattered (receive) in order
     * @param desc one MemoryRegion per buffer, or null when the mr_mode has no FI_MR_LOCAL
     * @param count how many entries of {@code iov} and {@code desc} to use, at most the tx/rx iov_limit
     * @param srcAddr the sender to match: FI_ADDR_UNSPEC ({@link Fabrics#ADDR_UNSPEC}) for any; with
     *     FI_DIRECTED_RECV, an fi_addr restricts the receive to that sender, without it the address is ignored
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL for a bad
     *     argument, -FI_ENOSYS when the provider lacks the call
     */
    default int recvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_recvmsg}; flags may hold FI_MULTI_RECV.
     *
     * @param msg the description; its addr is the source to match, as srcAddr of {@link #recv}
     * @param flags OpFlags for this operation alone (FI_COMPLETION, FI_INJECT, FI_REMOTE_CQ_DATA,
     *     FI_DELIVERY_COMPLETE, FI_MORE ...), instead of the tx/rx op_flags
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL for a bad
     *     argument, -FI_ENOSYS when the provider lacks the call
     */
    default int recvmsg(Msg msg, long flags) {
        return -Errno.ENOSYS;
    }

    // ---- tagged messages (fi_tagged(3)) -------------------------------------------------------

    /**
     * {@code fi_tsend}.
     *
     * @param buf the buffer; its {@code byteSize()} is the length in bytes
     * @param desc the buffer's {@link MemoryRegion}, or null when the domain's mr_mode has no FI_MR_LOCAL
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param tag the tag, within the bits of ep_attr.mem_tag_format
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full (progress and retry),
     *     -FI_EINVAL for a bad argument, -FI_EMSGSIZE over ep_attr.max_msg_size, -FI_ENOSYS when the provider
     *     lacks the call
     */
    default int tsend(MemorySegment buf, MemoryRegion desc, long destAddr, long tag, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_tsendv}.
     *
     * @param iov the buffers, gathered (send) or scattered (receive) in order
     * @param desc one MemoryRegion per buffer, or null when the mr_mode has no FI_MR_LOCAL
     * @param count how many entries of {@code iov} and {@code desc} to use, at most the tx/rx iov_limit
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param tag the tag, within the bits of ep_attr.mem_tag_format
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full (progress and retry),
     *     -FI_EINVAL for a bad argument, -FI_EMSGSIZE over ep_attr.max_msg_size, -FI_ENOSYS when the provider
     *     lacks the call
     */
    default int tsendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long tag,
                       Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_tsendmsg}.
     *
     * @param msg the description, with its tag; read during the call only
     * @param flags OpFlags for this operation alone (FI_COMPLETION, FI_INJECT, FI_REMOTE_CQ_DATA,
     *     FI_DELIVERY_COMPLETE, FI_MORE ...), instead of the tx/rx op_flags
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full (progress and retry),
     *     -FI_EINVAL for a bad argument, -FI_EMSGSIZE over ep_attr.max_msg_size, -FI_ENOSYS when the provider
     *     lacks the call
     */
    default int tsendmsg(TaggedMsg msg, long flags) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_tinject}: the buffer may be reused at once; no success completion.
     *
     * @param buf the data, at most tx_attr.inject_size bytes
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param tag the tag, within the bits of ep_attr.mem_tag_format
     * @return 0 when sent, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EMSGSIZE over
     *     tx_attr.inject_size, -FI_EINVAL, -FI_ENOSYS
     */
    default int tinject(MemorySegment buf, long destAddr, long tag) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_tsenddata}.
     *
     * @param buf the buffer; its {@code byteSize()} is the length in bytes
     * @param desc the buffer's {@link MemoryRegion}, or null when the domain's mr_mode has no FI_MR_LOCAL
     * @param data remote CQ data (up to domain_attr.cq_data_size bytes), delivered in the target's completion
     *     with FI_REMOTE_CQ_DATA
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param tag the tag, within the bits of ep_attr.mem_tag_format
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full (progress and retry),
     *     -FI_EINVAL for a bad argument, -FI_EMSGSIZE over ep_attr.max_msg_size, -FI_ENOSYS when the provider
     *     lacks the call
     */
    default int tsenddata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, long tag,
                          Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_tinjectdata}.
     *
     * @param buf the data, at most tx_attr.inject_size bytes
     * @param data remote CQ data (up to domain_attr.cq_data_size bytes), delivered in the target's completion
     *     with FI_REMOTE_CQ_DATA
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param tag the tag, within the bits of ep_attr.mem_tag_format
     * @return 0 when sent, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EMSGSIZE over
     *     tx_attr.inject_size, -FI_EINVAL, -FI_ENOSYS
     */
    default int tinjectdata(MemorySegment buf, long data, long destAddr, long tag) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_trecv}: posts a buffer for one tagged message. A message takes the first posted receive it
     * matches.
     *
     * @param buf the buffer; its {@code byteSize()} is the length in bytes
     * @param desc the buffer's {@link MemoryRegion}, or null when the domain's mr_mode has no FI_MR_LOCAL
     * @param srcAddr the sender to match: FI_ADDR_UNSPEC ({@link Fabrics#ADDR_UNSPEC}) for any; with
     *     FI_DIRECTED_RECV, an fi_addr restricts the receive to that sender, without it the address is ignored
     * @param tag the tag to match
     * @param ignore tag bits this receive ignores: a sent tag matches when {@code (sent | ignore) == (tag |
     *     ignore)}
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL for a bad
     *     argument, -FI_ENOSYS when the provider lacks the call
     */
    default int trecv(MemorySegment buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_trecvv}.
     *
     * @param iov the buffers, gathered (send) or scattered (receive) in order
     * @param desc one MemoryRegion per buffer, or null when the mr_mode has no FI_MR_LOCAL
     * @param count how many entries of {@code iov} and {@code desc} to use, at most the tx/rx iov_limit
     * @param srcAddr the sender to match: FI_ADDR_UNSPEC ({@link Fabrics#ADDR_UNSPEC}) for any; with
     *     FI_DIRECTED_RECV, an fi_addr restricts the receive to that sender, without it the address is ignored
     * @param tag the tag to match
     * @param ignore tag bits this receive ignores: a sent tag matches when {@code (sent | ignore) == (tag |
     *     ignore)}
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL for a bad
     *     argument, -FI_ENOSYS when the provider lacks the call
     */
    default int trecvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long tag, long ignore,
                       Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_trecvmsg}. With FI_PEEK it looks for a matching message without receiving it (an error entry
     * with err FI_ENOMSG when there is none); FI_CLAIM then receives, FI_DISCARD drops, the message found.
     *
     * @param msg the description; addr, tag and ignore as in {@link #trecv}
     * @param flags OpFlags for this operation alone (FI_COMPLETION, FI_INJECT, FI_REMOTE_CQ_DATA,
     *     FI_DELIVERY_COMPLETE, FI_MORE ...), instead of the tx/rx op_flags; also FI_PEEK, FI_CLAIM, FI_DISCARD
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL for a bad
     *     argument, -FI_ENOSYS when the provider lacks the call
     */
    default int trecvmsg(TaggedMsg msg, long flags) {
        return -Errno.ENOSYS;
    }

    // ---- RMA (fi_rma(3)) ----------------------------------------------------------------------

    /**
     * {@code fi_read}: copies {@code buf.byteSize()} bytes of remote memory into {@code buf}.
     *
     * @param buf the local buffer that receives the data
     * @param desc the buffer's {@link MemoryRegion}, or null when the domain's mr_mode has no FI_MR_LOCAL
     * @param srcAddr the target's fi_addr; ignored on a connected endpoint
     * @param addr the target address: the offset into the target region, or its virtual address when the
     *     domain's mr_mode has FI_MR_VIRT_ADDR (then {@code MemoryRegion.segment().address()} at the target)
     * @param key the target region's key ({@link MemoryRegion#key()} at the target)
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL, -FI_EMSGSIZE
     *     over max_msg_size, -FI_ENOSYS when the provider lacks RMA
     */
    default int read(MemorySegment buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_readv}.
     *
     * @param iov the local buffers, filled in order
     * @param desc one MemoryRegion per buffer, or null when the mr_mode has no FI_MR_LOCAL
     * @param count how many entries of {@code iov} and {@code desc} to use, at most the tx/rx iov_limit
     * @param srcAddr the target's fi_addr; ignored on a connected endpoint
     * @param addr the target address: the offset into the target region, or its virtual address when the
     *     domain's mr_mode has FI_MR_VIRT_ADDR (then {@code MemoryRegion.segment().address()} at the target)
     * @param key the target region's key ({@link MemoryRegion#key()} at the target)
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL, -FI_EMSGSIZE
     *     over max_msg_size, -FI_ENOSYS when the provider lacks RMA
     */
    default int readv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long addr, long key,
                      Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_readmsg}.
     *
     * @param msg local iovs plus the remote {@link RmaIov}s (addresses as in {@link #read}); read during the
     *     call only
     * @param flags OpFlags for this operation alone (FI_COMPLETION, FI_INJECT, FI_REMOTE_CQ_DATA,
     *     FI_DELIVERY_COMPLETE, FI_MORE ...), instead of the tx/rx op_flags
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL, -FI_EMSGSIZE
     *     over max_msg_size, -FI_ENOSYS when the provider lacks RMA
     */
    default int readmsg(RmaMsg msg, long flags) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_write}: copies {@code buf} into remote memory.
     *
     * <p>Visibility: the write's completion (by default FI_TRANSMIT_COMPLETE) does not say the data is in
     * target memory. A later send reaches the peer after the written data only if the write was posted with
     * FI_DELIVERY_COMPLETE and the send after its completion, or FI_ORDER_SAW (send after write) is in this
     * endpoint's tx msg_order and the target's rx msg_order, with FI_ORDER_DATA in the target's rx comp_order
     * (fi_endpoint(3)).
     *
     * @param buf the buffer; its {@code byteSize()} is the length in bytes
     * @param desc the buffer's {@link MemoryRegion}, or null when the domain's mr_mode has no FI_MR_LOCAL
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param addr the target address: the offset into the target region, or its virtual address when the
     *     domain's mr_mode has FI_MR_VIRT_ADDR (then {@code MemoryRegion.segment().address()} at the target)
     * @param key the target region's key ({@link MemoryRegion#key()} at the target)
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL, -FI_EMSGSIZE
     *     over max_msg_size, -FI_ENOSYS when the provider lacks RMA
     */
    default int write(MemorySegment buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_writev}; visibility as in {@link #write}.
     *
     * @param iov the buffers, gathered (send) or scattered (receive) in order
     * @param desc one MemoryRegion per buffer, or null when the mr_mode has no FI_MR_LOCAL
     * @param count how many entries of {@code iov} and {@code desc} to use, at most the tx/rx iov_limit
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param addr the target address: the offset into the target region, or its virtual address when the
     *     domain's mr_mode has FI_MR_VIRT_ADDR (then {@code MemoryRegion.segment().address()} at the target)
     * @param key the target region's key ({@link MemoryRegion#key()} at the target)
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL, -FI_EMSGSIZE
     *     over max_msg_size, -FI_ENOSYS when the provider lacks RMA
     */
    default int writev(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long addr, long key,
                       Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_writemsg}; visibility as in {@link #write}. FI_REMOTE_CQ_DATA in flags sends {@code msg.data}
     * to the target's CQ.
     *
     * @param msg local iovs plus the remote {@link RmaIov}s (addresses as in {@link #write}); read during the
     *     call only
     * @param flags OpFlags for this operation alone (FI_COMPLETION, FI_INJECT, FI_REMOTE_CQ_DATA,
     *     FI_DELIVERY_COMPLETE, FI_MORE ...), instead of the tx/rx op_flags
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL, -FI_EMSGSIZE
     *     over max_msg_size, -FI_ENOSYS when the provider lacks RMA
     */
    default int writemsg(RmaMsg msg, long flags) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_writedata}: a write that also delivers remote CQ data to the target's CQ; visibility as in
     * {@link #write}.
     *
     * @param buf the buffer; its {@code byteSize()} is the length in bytes
     * @param desc the buffer's {@link MemoryRegion}, or null when the domain's mr_mode has no FI_MR_LOCAL
     * @param data remote CQ data (up to domain_attr.cq_data_size bytes), delivered in the target's completion
     *     with FI_REMOTE_CQ_DATA
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param addr the target address: the offset into the target region, or its virtual address when the
     *     domain's mr_mode has FI_MR_VIRT_ADDR (then {@code MemoryRegion.segment().address()} at the target)
     * @param key the target region's key ({@link MemoryRegion#key()} at the target)
     * @param context comes back as the completion's {@code context}, or in its error completion; the handle for
     *     {@link #cancel}
     * @return 0 when queued, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EINVAL, -FI_EMSGSIZE
     *     over max_msg_size, -FI_ENOSYS when the provider lacks RMA
     */
    default int writedata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                          Object context) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_inject_write}: the buffer may be reused at once; no success completion.
     *
     * @param buf the data, at most tx_attr.inject_size bytes
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param addr the target address: the offset into the target region, or its virtual address when the
     *     domain's mr_mode has FI_MR_VIRT_ADDR (then {@code MemoryRegion.segment().address()} at the target)
     * @param key the target region's key ({@link MemoryRegion#key()} at the target)
     * @return 0 when sent, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EMSGSIZE over
     *     tx_attr.inject_size, -FI_EINVAL, -FI_ENOSYS
     */
    default int injectWrite(MemorySegment buf, long destAddr, long addr, long key) {
        return -Errno.ENOSYS;
    }

    /**
     * {@code fi_inject_writedata}.
     *
     * @param buf the data, at most tx_attr.inject_size bytes
     * @param data remote CQ data (up to domain_attr.cq_data_size bytes), delivered in the target's completion
     *     with FI_REMOTE_CQ_DATA
     * @param destAddr the peer's fi_addr from the bound AV; ignored on a connected FI_EP_MSG endpoint
     * @param addr the target address: the offset into the target region, or its virtual address when the
     *     domain's mr_mode has FI_MR_VIRT_ADDR (then {@code MemoryRegion.segment().address()} at the target)
     * @param key the target region's key ({@link MemoryRegion#key()} at the target)
     * @return 0 when sent, or a negative errno: -FI_EAGAIN when the queue is full, -FI_EMSGSIZE over
     *     tx_attr.inject_size, -FI_EINVAL, -FI_ENOSYS
     */
    default int injectWritedata(MemorySegment buf, long data, long destAddr, long addr, long key) {
        return -Errno.ENOSYS;
    }
}
