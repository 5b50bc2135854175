package io.jfabric;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors {@code struct fid_ep}: an active endpoint, with libfabric's control calls (fi_ep_bind,
 * fi_enable, fi_connect, fi_accept, fi_shutdown, fi_getname/fi_setname/fi_getpeer, fi_getopt/fi_setopt)
 * and data-path calls (fi_msg(3), fi_tagged(3), fi_rma(3), fi_cancel).
 *
 * <p>Data-path methods return 0 or a negative {@link Errno} ({@code -Errno.EAGAIN} when the queue is
 * full or a connection is still being set up) and never throw for an expected outcome. Each
 * operation's {@code context} comes back in its completion, or in its error completion. {@code desc}
 * is the buffer's {@link MemoryRegion}, or null where the domain's mr_mode does not need FI_MR_LOCAL.
 * An operation a provider does not offer returns {@code -Errno.ENOSYS}.
 *
 * <p>Differences from libfabric: buffers are {@link MemorySegment}s (their size is the length);
 * iov forms take arrays plus a count; the *msg forms take reusable {@link Msg}/{@link TaggedMsg}/
 * {@link RmaMsg} objects that the caller owns.
 */
public interface Endpoint extends FabricObject {

    // ---- control path -------------------------------------------------------------------------

    /** {@code fi_ep_bind} of a CQ, with BindFlags (TRANSMIT, RECV, SELECTIVE_COMPLETION). */
    void bind(CompletionQueue cq, long flags);

    /** {@code fi_ep_bind} of an EQ (connection events, async AV inserts). */
    void bind(EventQueue eq);

    /** {@code fi_ep_bind} of an AV (connectionless endpoints). */
    void bind(AddressVector av);

    /** {@code fi_ep_bind} of a counter, with BindFlags (TRANSMIT, RECV, READ, WRITE, REMOTE_*). */
    void bind(Counter counter, long flags);

    /** {@code fi_enable}. */
    void enable();

    /** {@code fi_connect} (FI_EP_MSG): asynchronous; CONNECTED or an error arrives on the bound EQ. */
    void connect(byte[] addr, byte[] data);

    /** {@code fi_accept} of the CONNREQ this endpoint was opened from. */
    void accept(byte[] data);

    /** {@code fi_shutdown}. */
    void shutdown(long flags);

    /** {@code fi_getname}: this endpoint's address. */
    byte[] getName();

    /** {@code fi_setname}. */
    void setName(byte[] addr);

    /** {@code fi_getpeer}: the connected peer's address. */
    byte[] getPeer();

    /** {@code fi_getopt} at FI_OPT_ENDPOINT. */
    long getOpt(EndpointOption option);

    /** {@code fi_setopt} at FI_OPT_ENDPOINT. */
    void setOpt(EndpointOption option, long value);

    /** {@code fi_cancel}: cancels the queued operation posted with {@code context}; it completes with ECANCELED. */
    int cancel(Object context);

    // ---- messages (fi_msg(3)) -----------------------------------------------------------------

    default int send(MemorySegment buf, MemoryRegion desc, long destAddr, Object context) {
        return -Errno.ENOSYS;
    }

    default int sendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, Object context) {
        return -Errno.ENOSYS;
    }

    default int sendmsg(Msg msg, long flags) {
        return -Errno.ENOSYS;
    }

    /** {@code fi_inject}: the buffer may be reused at once; no success completion. */
    default int inject(MemorySegment buf, long destAddr) {
        return -Errno.ENOSYS;
    }

    default int senddata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, Object context) {
        return -Errno.ENOSYS;
    }

    default int injectdata(MemorySegment buf, long data, long destAddr) {
        return -Errno.ENOSYS;
    }

    default int recv(MemorySegment buf, MemoryRegion desc, long srcAddr, Object context) {
        return -Errno.ENOSYS;
    }

    default int recvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, Object context) {
        return -Errno.ENOSYS;
    }

    default int recvmsg(Msg msg, long flags) {
        return -Errno.ENOSYS;
    }

    // ---- tagged messages (fi_tagged(3)) -------------------------------------------------------

    default int tsend(MemorySegment buf, MemoryRegion desc, long destAddr, long tag, Object context) {
        return -Errno.ENOSYS;
    }

    default int tsendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long tag,
                       Object context) {
        return -Errno.ENOSYS;
    }

    default int tsendmsg(TaggedMsg msg, long flags) {
        return -Errno.ENOSYS;
    }

    default int tinject(MemorySegment buf, long destAddr, long tag) {
        return -Errno.ENOSYS;
    }

    default int tsenddata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, long tag,
                          Object context) {
        return -Errno.ENOSYS;
    }

    default int tinjectdata(MemorySegment buf, long data, long destAddr, long tag) {
        return -Errno.ENOSYS;
    }

    default int trecv(MemorySegment buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object context) {
        return -Errno.ENOSYS;
    }

    default int trecvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long tag, long ignore,
                       Object context) {
        return -Errno.ENOSYS;
    }

    /** {@code fi_trecvmsg}; flags may hold FI_PEEK, FI_CLAIM, FI_DISCARD. */
    default int trecvmsg(TaggedMsg msg, long flags) {
        return -Errno.ENOSYS;
    }

    // ---- RMA (fi_rma(3)) ----------------------------------------------------------------------

    /** {@code fi_read}: reads {@code buf.byteSize()} bytes at remote {@code addr} under {@code key}. */
    default int read(MemorySegment buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        return -Errno.ENOSYS;
    }

    default int readv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long addr, long key,
                      Object context) {
        return -Errno.ENOSYS;
    }

    default int readmsg(RmaMsg msg, long flags) {
        return -Errno.ENOSYS;
    }

    default int write(MemorySegment buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        return -Errno.ENOSYS;
    }

    default int writev(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long addr, long key,
                       Object context) {
        return -Errno.ENOSYS;
    }

    default int writemsg(RmaMsg msg, long flags) {
        return -Errno.ENOSYS;
    }

    default int writedata(MemorySegment buf, MemoryRegion desc, long data, long destAddr, long addr, long key,
                          Object context) {
        return -Errno.ENOSYS;
    }

    default int injectWrite(MemorySegment buf, long destAddr, long addr, long key) {
        return -Errno.ENOSYS;
    }

    default int injectWritedata(MemorySegment buf, long data, long destAddr, long addr, long key) {
        return -Errno.ENOSYS;
    }
}
