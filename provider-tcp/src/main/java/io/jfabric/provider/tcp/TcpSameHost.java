package io.jfabric.provider.tcp;

import io.jfabric.Errno;
import io.jfabric.provider.tcp.wire.CmMessage;
import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.provider.tcp.wire.WireOrder;
import io.jfabric.util.Cma;
import io.jfabric.util.FabricLog;
import io.jfabric.util.OpRequest;
import io.jfabric.util.SameHostToken;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One connection's same-host path: between two jfabric endpoints in processes of one host and user, a large message
 * stays in the sender's memory and the receiver copies it out with process_vm_readv, one copy where the socket
 * costs two (into the kernel and out) plus the loopback stack; then it ACKs, and the send completes on the ACK.
 * <ul>
 * <li>both CM messages carry the sender's pid and token ({@link CmMessage#announceSameHost}); once connected,
 *     each side reads its peer's token back ({@link SameHostToken#verify}) and, if it can, tells the peer with one
 *     {@link DataHeader#OP_SAME_HOST_READY} frame, since reading is a right of the reader that only it can test
 *     (ptrace policy need not be symmetric);</li>
 * <li>a side that heard READY sends each message of at least {@code same_host_min} bytes from native buffers as a
 *     {@link DataHeader#FLAG_SAME_HOST} frame naming those buffers, and each RMA write of that size from native
 *     buffers as a same-host write naming them, when its buffers and target ranges come to at most
 *     {@link DataHeader#SAME_HOST_WRITE_RANGES} (the target checks the key as for any write, copies, then ACKs);
 *     it answers each RMA read of at least that size from native memory with a same-host read response naming
 *     the ranges, after checking the key as for any read (so a bad key still fails at the initiator); everything
 *     else goes through the socket.</li>
 * </ul>
 * A lent read is copied after the target has answered, as an RDMA read reaches the target's memory without its
 * CPU: memory the target frees or unregisters before the copy fails the read at the initiator (the connection
 * closes with EFAULT, as a verbs queue pair goes to error on a remote access error), or reads what it now holds.
 * libfabric peers announce nothing, so they never receive either frame, and a jfabric endpoint refuses both from a
 * peer it has not verified. Used under the endpoint's lock.
 */
final class TcpSameHost {
    private static final System.Logger LOG = FabricLog.logger(TcpParams.PROV);
    /** Heap receive buffers are filled through this much native memory at a time. */
    private static final int SCRATCH = 64 * 1024;

    private final long minSize;
    private Cma cma;
    private Arena scratchArena;
    private MemorySegment scratch;
    /** The peer's pid when this side can read its memory, else 0. */
    private int peerPid;
    /** The peer said it can read ours: large sends may go by copy. */
    private boolean peerReads;
    /** Messages and read responses received by copy: for diagnostics and tests. */
    private long copied;
    /** Read responses this side answered by naming its memory: for diagnostics and tests. */
    private long lentReads;
    /** The frame whose ranges of the peer's memory a copy is reading, the range it is at and how far into it. */
    private MemorySegment ranges;
    private WireOrder rangesOrder;
    private int rangeCount;
    private int range;
    private long rangeDone;

    private TcpSameHost(long minSize) {
        this.minSize = Math.max(1, minSize);
    }

    /** Null when the path is off or process_vm_readv is missing. */
    static TcpSameHost open() {
        return TcpParams.SAME_HOST_COPY.get() && Cma.linked() ? new TcpSameHost(TcpParams.SAME_HOST_MIN.get()) : null;
    }

    /** Adds this process's announcement to an encoded CM message. */
    static void announce(MemorySegment cmMessage) {
        CmMessage.announceSameHost(cmMessage, SameHostToken.pid(), SameHostToken.address(), SameHostToken.value());
    }

    /** Tests the peer's announcement in its CM header; true when this side can read the peer (then say READY). */
    boolean verify(MemorySegment peerCmHeader) {
        long pid = CmMessage.sameHostPid(peerCmHeader);
        if (pid == 0) {
            return false;
        }
        if (cma == null) {
            cma = new Cma();
        }
        peerPid = SameHostToken.verify(cma, pid, CmMessage.sameHostTokenAddress(peerCmHeader),
                CmMessage.sameHostToken(peerCmHeader));
        if (peerPid == 0) {
            LOG.log(System.Logger.Level.DEBUG, "peer pid {0} announced itself but its token does not read back;"
                    + " messages from it come through the socket", pid);
        }
        return peerPid != 0;
    }

    /** Whether the peer may send same-host frames (we verified it). */
    boolean readsPeer() {
        return peerPid != 0;
    }

    /** The peer's READY frame. */
    void peerReady() {
        peerReads = true;
    }

    /** Whether this send goes by copy: the peer reads us, it is large enough, and its buffers are native. */
    boolean carries(OpRequest op, long total) {
        return peerReads && total >= minSize && op.count <= DataHeader.IOV_LIMIT && allNative(op.iov, op.count);
    }

    /**
     * Turns read response {@code rsp} (header and views of the ranges its request asked for, checked) into a
     * same-host one that names those ranges instead of carrying them, when the peer reads us, the read is large
     * enough and every range is native memory; otherwise leaves it as it is.
     */
    void lendRead(TxEntry rsp, long total, WireOrder o) {
        int n = rsp.bufCount - 1;
        if (!peerReads || total < minSize || n < 1 || n > DataHeader.IOV_LIMIT) {
            return;
        }
        for (int i = 0; i < n; i++) {
            if (rsp.views[i].address() == 0) {
                return;
            }
        }
        int hl = DataHeader.encodeSameHostReadRsp(rsp.hdr, o, n);
        for (int i = 0; i < n; i++) {
            DataHeader.putSameHostIov(rsp.hdr, o, i, rsp.views[i].address(), rsp.bufs[i + 1].remaining());
            rsp.bufs[i + 1] = null;
        }
        rsp.hdrView.clear().limit(hl);
        rsp.bufCount = 1;
        rsp.remaining = hl;
        lentReads++;
    }

    /**
     * Copies the first {@code n} bytes of the same-host message (or read response) {@code h} names into {@code dst}.
     *
     * @return 0, or a negative errno (the peer gone, or a range it does not map)
     */
    int copy(MemorySegment h, WireOrder o, MemorySegment[] dst, int dstCount, long n) {
        int local = cma.localSegments(dst, dstCount, 0, n);
        if (local >= 0) {
            return copyVector(h, o, local, n);
        }
        startRanges(h, o);
        long done = 0;
        for (int li = 0; li < dstCount && done < n; li++) {
            MemorySegment d = dst[li];
            long k = Math.min(d.byteSize(), n - done);
            int rc = pull(d, d.isNative() ? d.address() : 0, k);
            if (rc != 0) {
                return rc;
            }
            done += k;
        }
        if (done != n) {
            return -Errno.EIO;
        }
        copied++;
        return 0;
    }

    /**
     * Copies the source ranges of same-host write {@code h} into its {@code count} checked target views
     * {@code dst} (views of {@code slots}), in order; the decoder has checked that both add up to the same length.
     *
     * @return 0, or a negative errno (the peer gone, or a range it does not map)
     */
    int copyWrite(MemorySegment h, WireOrder o, ByteBuffer[] dst, SegmentView[] slots, int count) {
        if (count <= Cma.VECTOR_LIMIT && allLive(slots, count)) {
            long total = 0;
            for (int i = 0; i < count; i++) {
                cma.localPiece(i, slots[i].address(), dst[i].remaining());
                total += dst[i].remaining();
            }
            return copyVector(h, o, count, total);
        }
        startRanges(h, o);
        for (int i = 0; i < count; i++) {
            ByteBuffer b = dst[i];
            long at = slots[i].address();
            // a view with no live address (heap region, full view cache) is filled through scratch, wrapped per
            // write as the socket path wraps heap memory per operation
            int rc = pull(at != 0 ? null : MemorySegment.ofBuffer(b), at, b.remaining());
            if (rc != 0) {
                return rc;
            }
        }
        copied++;
        return 0;
    }

    /**
     * Copies the first {@code n} bytes of the ranges frame {@code h} names into the {@code local} pieces set on
     * {@link #cma}, with one process_vm_readv however their boundaries fall.
     */
    private int copyVector(MemorySegment h, WireOrder o, int local, long n) {
        int count = DataHeader.sameHostCount(h, o);
        int remote = 0;
        long left = n;
        for (int i = 0; i < count && left > 0; i++) {
            long len = Math.min(DataHeader.sameHostLen(h, o, i), left);
            cma.remotePiece(remote++, DataHeader.sameHostAddr(h, o, i), len);
            left -= len;
        }
        if (left != 0) {
            return -Errno.EIO;
        }
        int rc = cma.readVector(peerPid, local, remote);
        if (rc == 0) {
            copied++;
        }
        return rc;
    }

    private static boolean allNative(MemorySegment[] dst, int count) {
        for (int i = 0; i < count; i++) {
            if (!dst[i].isNative()) {
                return false;
            }
        }
        return true;
    }

    private static boolean allLive(SegmentView[] slots, int count) {
        for (int i = 0; i < count; i++) {
            if (slots[i].address() == 0) {
                return false;
            }
        }
        return true;
    }

    /** Starts reading the ranges of the peer's memory that same-host frame {@code h} names. */
    private void startRanges(MemorySegment h, WireOrder o) {
        ranges = h;
        rangesOrder = o;
        rangeCount = DataHeader.sameHostCount(h, o);
        range = 0;
        rangeDone = 0;
    }

    /**
     * Copies the next {@code k} bytes of the ranges into {@code d}, or to native address {@code at} when it is not
     * 0, one process_vm_readv per piece that lies within one range: the path for heap memory, and for more pieces
     * than a vectored read takes.
     */
    private int pull(MemorySegment d, long at, long k) {
        for (long done = 0; done < k; ) {
            while (range < rangeCount && rangeDone == DataHeader.sameHostLen(ranges, rangesOrder, range)) {
                range++;
                rangeDone = 0;
            }
            if (range >= rangeCount) {
                return -Errno.EIO;
            }
            long remote = DataHeader.sameHostAddr(ranges, rangesOrder, range) + rangeDone;
            long piece = Math.min(k - done, DataHeader.sameHostLen(ranges, rangesOrder, range) - rangeDone);
            int rc = at != 0 ? cma.readFully(peerPid, at + done, remote, piece)
                    : readThroughScratch(remote, d, done, piece);
            if (rc != 0) {
                return rc;
            }
            done += piece;
            rangeDone += piece;
        }
        return 0;
    }

    /** Reads {@code k} bytes at {@code remote} into heap memory {@code d} at {@code offset}, through scratch. */
    private int readThroughScratch(long remote, MemorySegment d, long offset, long k) {
        if (scratch == null) {
            scratchArena = Arena.ofShared();
            scratch = scratchArena.allocate(SCRATCH, 64);
        }
        for (long done = 0; done < k; ) {
            long c = Math.min(SCRATCH, k - done);
            int rc = cma.readFully(peerPid, scratch.address(), remote + done, c);
            if (rc != 0) {
                return rc;
            }
            MemorySegment.copy(scratch, 0, d, offset + done, c);
            done += c;
        }
        return 0;
    }

    /** The connection is gone: release the native memory. */
    void close() {
        if (cma != null) {
            cma.close();
            cma = null;
        }
        if (scratchArena != null) {
            scratchArena.close();
            scratchArena = null;
            scratch = null;
        }
        peerPid = 0;
        peerReads = false;
    }

    @Override
    public String toString() {
        return "same-host copy (reads peer " + (peerPid != 0) + ", peer reads " + peerReads + ", copied " + copied
                + ", reads lent " + lentReads + ")";
    }
}
