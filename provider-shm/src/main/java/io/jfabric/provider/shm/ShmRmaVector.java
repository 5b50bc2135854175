package io.jfabric.provider.shm;

import io.jfabric.Access;
import io.jfabric.Errno;
import io.jfabric.RmaIov;
import io.jfabric.provider.shm.wire.Wire;
import io.jfabric.util.Cma;
import io.jfabric.util.MrMap;
import io.jfabric.util.OpRequest;
import io.jfabric.util.UtilMemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * RMA with several buffers or ranges (readv/writev, readmsg/writemsg; rma_iov_limit and iov_limit 4): the command
 * lists the initiator's buffers and the target's ranges ({@link Wire#FLAG_VECTOR}), and the target checks every
 * range's key, bounds and access before it copies anything, then walks both lists at once and copies all of
 * it with one vectored process_vm_readv/writev. A large one is split ({@link ShmSplitCopy}) when the second half of
 * its bytes is one run of the target's memory: the initiator copies that half between its buffers and the run.
 */
final class ShmRmaVector implements ShmSplitCopy.Halves {
    /** The most buffers and ranges one command lists. */
    static final int LIMIT = ShmIov.LIMIT;

    private final MrMap mrMap;
    private final Cma cma;
    private final ShmSplitCopy split;
    // the target's walk, reused by every command: nothing is allocated per operation
    private final UtilMemoryRegion[] regions = new UtilMemoryRegion[LIMIT];
    private final long[] offsets = new long[LIMIT];
    // the command being applied, which the split copy calls back into
    private boolean write;
    private MemorySegment command;
    private long localEntries;
    private int localCount;
    private long remoteEntries;
    private int remoteCount;
    private Peer peer;

    ShmRmaVector(MrMap mrMap, Cma cma, ShmSplitCopy split) {
        this.mrMap = mrMap;
        this.cma = cma;
        this.split = split;
    }

    /** The command's record length for {@code req}, or -EINVAL when its lists are not a vector command's. */
    static int recordLength(OpRequest req) {
        if (req.count < 1 || req.count > LIMIT || req.rmaCount < 1 || req.rmaCount > LIMIT || req.rmaIov == null
                || req.rmaCount > req.rmaIov.length) {
            return -Errno.EINVAL;
        }
        long local = 0;
        for (int i = 0; i < req.count; i++) {
            MemorySegment b = req.iov[i];
            if (b == null || !b.isNative()) {
                return -Errno.EINVAL; // the target copies straight into/out of these buffers with CMA
            }
            local += b.byteSize();
        }
        long remote = 0;
        for (int i = 0; i < req.rmaCount; i++) {
            RmaIov r = req.rmaIov[i];
            if (r == null || r.len < 0) {
                return -Errno.EINVAL;
            }
            remote += r.len;
        }
        if (local != remote) {
            return -Errno.EINVAL;
        }
        return Wire.recordPayload(entriesEnd(req.count, req.rmaCount));
    }

    private static int entriesEnd(int localCount, int remoteCount) {
        return Wire.VECTOR_ENTRIES + localCount * Wire.VECTOR_LOCAL_ENTRY + remoteCount * Wire.VECTOR_REMOTE_ENTRY;
    }

    /** Writes {@code req}'s lists after the command's header. */
    static void encode(OpRequest req, MemorySegment s, long at) {
        Wire.putInt(s, at + Wire.VECTOR_LOCAL_COUNT, req.count);
        Wire.putInt(s, at + Wire.VECTOR_REMOTE_COUNT, req.rmaCount);
        long e = at + Wire.VECTOR_ENTRIES;
        for (int i = 0; i < req.count; i++, e += Wire.VECTOR_LOCAL_ENTRY) {
            Wire.putLong(s, e, req.iov[i].address());
            Wire.putLong(s, e + 8, req.iov[i].byteSize());
        }
        for (int i = 0; i < req.rmaCount; i++, e += Wire.VECTOR_REMOTE_ENTRY) {
            RmaIov r = req.rmaIov[i];
            Wire.putLong(s, e, r.addr);
            Wire.putLong(s, e + 8, r.len);
            Wire.putLong(s, e + 16, r.key);
        }
    }

    /**
     * The target's side of a vector command of {@code length} bytes in our ring, from {@code peer}: 0, or the positive
     * errno its ACK carries (EIO for a command whose lists do not add up; the first range's refusal otherwise).
     */
    int apply(int type, MemorySegment s, long at, int length, Peer peer, long opId) {
        int localCount = Wire.getInt(s, at + Wire.VECTOR_LOCAL_COUNT);
        int remoteCount = Wire.getInt(s, at + Wire.VECTOR_REMOTE_COUNT);
        if (localCount < 1 || localCount > LIMIT || remoteCount < 1 || remoteCount > LIMIT
                || entriesEnd(localCount, remoteCount) > length) {
            return Errno.EIO;
        }
        long total = Wire.getLong(s, at + Wire.LENGTH);
        long localEntries = at + Wire.VECTOR_ENTRIES;
        long remoteEntries = localEntries + (long) localCount * Wire.VECTOR_LOCAL_ENTRY;
        long sum = 0;
        for (int i = 0; i < localCount; i++) {
            long n = Wire.getLong(s, localEntries + i * Wire.VECTOR_LOCAL_ENTRY + 8);
            if (n < 0) {
                return Errno.EIO;
            }
            sum += n;
        }
        if (sum != total) {
            return Errno.EIO;
        }
        long access = type == Wire.RMA_WRITE ? Access.REMOTE_WRITE : Access.REMOTE_READ;
        sum = 0;
        for (int i = 0; i < remoteCount; i++) {
            long e = remoteEntries + i * Wire.VECTOR_REMOTE_ENTRY;
            long len = Wire.getLong(s, e + 8);
            UtilMemoryRegion mr = mrMap.find(Wire.getLong(s, e + 16));
            if (mr == null) {
                return Errno.ENOKEY;
            }
            long off = mr.resolve(Wire.getLong(s, e), len, access);
            if (off < 0) {
                return (int) -off;
            }
            regions[i] = mr;
            offsets[i] = off;
            sum += len;
        }
        if (sum != total) {
            return Errno.EIO;
        }
        this.write = type == Wire.RMA_WRITE;
        this.command = s;
        this.localEntries = localEntries;
        this.localCount = localCount;
        this.remoteEntries = remoteEntries;
        this.remoteCount = remoteCount;
        this.peer = peer;
        int status = split.copy(peer, opId, total, this);
        this.command = null;
        this.peer = null;
        return status;
    }

    @Override
    public long contiguousFrom(long offset) {
        long start = 0;
        long next = 0;
        long done = 0;
        for (int i = 0; i < remoteCount; i++) {
            UtilMemoryRegion mr = regions[i];
            long pos = offsets[i];
            long left = rangeLength(i);
            while (left > 0) {
                int seg = mr.segmentIndex(pos);
                long inSeg = pos - mr.segmentStart(seg);
                long n = Math.min(left, mr.segment(seg).byteSize() - inSeg);
                if (done + n > offset) {
                    long skip = Math.max(0, offset - done);
                    long address = mr.segment(seg).address() + inSeg + skip;
                    if (start != 0 && address != next) {
                        return 0;
                    }
                    start = start == 0 ? address : start;
                    next = address + n - skip;
                }
                pos += n;
                left -= n;
                done += n;
            }
        }
        return start;
    }

    /**
     * Walks the target's ranges (each cut at its region's segments) against the initiator's buffers, gathering the
     * pieces of bytes {@code [from, to)} that are contiguous on both sides into one vectored process_vm_readv/writev
     * (one more for every {@link Cma#VECTOR_LIMIT} pieces).
     */
    @Override
    public int copy(long from, long to) {
        int li = 0;
        long lDone = 0;
        int pieces = 0;
        long done = 0;
        for (int i = 0; i < remoteCount && done < to; i++) {
            UtilMemoryRegion mr = regions[i];
            long pos = offsets[i];
            long left = rangeLength(i);
            while (left > 0 && done < to) {
                long lLen;
                while ((lLen = Wire.getLong(command, localEntries + li * Wire.VECTOR_LOCAL_ENTRY + 8)) == lDone) {
                    if (++li == localCount) {
                        return Errno.EIO; // cannot happen once the sums agree; a guard, not a path
                    }
                    lDone = 0;
                }
                int seg = mr.segmentIndex(pos);
                long inSeg = pos - mr.segmentStart(seg);
                MemorySegment target = mr.segment(seg);
                long n = Math.min(left, Math.min(target.byteSize() - inSeg, lLen - lDone));
                long skip = Math.max(0, from - done); // the piece's bytes before the run asked for
                long take = Math.min(n, to - done) - skip;
                if (take > 0) {
                    // the target's memory is the local side, the initiator's buffers the remote one
                    long lAddr = Wire.getLong(command, localEntries + li * Wire.VECTOR_LOCAL_ENTRY) + lDone;
                    cma.localPiece(pieces, target.address() + inSeg + skip, take);
                    cma.remotePiece(pieces, lAddr + skip, take);
                    if (++pieces == Cma.VECTOR_LIMIT) {
                        int status = flush(pieces);
                        if (status != 0) {
                            return status;
                        }
                        pieces = 0;
                    }
                }
                pos += n;
                left -= n;
                lDone += n;
                done += n;
            }
        }
        return pieces == 0 ? 0 : flush(pieces);
    }

    private long rangeLength(int i) {
        return Wire.getLong(command, remoteEntries + i * Wire.VECTOR_REMOTE_ENTRY + 8);
    }

    /** An RMA write is read out of the initiator's buffers, a read written into them. */
    private int flush(int pieces) {
        return ShmIov.cmaStatus(cma.vector(!write, peer.pid, pieces, pieces));
    }
}
