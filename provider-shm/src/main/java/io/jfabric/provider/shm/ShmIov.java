package io.jfabric.provider.shm;

import io.jfabric.Errno;

import java.lang.foreign.MemorySegment;

/**
 * A buffer list of up to {@link #LIMIT} segments that an operation keeps past its post: a receive posted
 * with more than one buffer, and a message a receiver pulls (whose buffers the sender must keep until the
 * ACK). Pooled; a receive with one buffer keeps the segment itself, so the common case pays no list.
 * The static helpers gather a caller's iov and scatter into either form.
 */
final class ShmIov {
    /** The iov_limit shm offers (libfabric's shm offers 4 too). */
    static final int LIMIT = 4;

    final MemorySegment[] segments = new MemorySegment[LIMIT];
    int count;

    void set(MemorySegment[] iov, int n) {
        System.arraycopy(iov, 0, segments, 0, n);
        count = n;
    }

    void clear() {
        for (int i = 0; i < count; i++) {
            segments[i] = null;
        }
        count = 0;
    }

    /** Copies {@code n} bytes of this list, from byte {@code offset} on, to {@code dst} at {@code dstOffset}. */
    void copyTo(long offset, MemorySegment dst, long dstOffset, long n) {
        for (int i = 0; i < count && n > 0; i++) {
            long size = segments[i].byteSize();
            if (offset >= size) {
                offset -= size;
                continue;
            }
            long piece = Math.min(size - offset, n);
            MemorySegment.copy(segments[i], offset, dst, dstOffset, piece);
            dstOffset += piece;
            n -= piece;
            offset = 0;
        }
    }

    /**
     * The bytes of a posted call's buffers, or -1 when the list is longer than {@link #LIMIT} or holds a
     * null segment.
     */
    static long length(MemorySegment[] iov, int count) {
        if (count > LIMIT) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < count; i++) {
            if (iov[i] == null) {
                return -1;
            }
            n += iov[i].byteSize();
        }
        return n;
    }

    /** Copies a caller's buffers, one after the other, to {@code dst} at {@code dstOffset}. */
    static void gather(MemorySegment[] iov, int count, MemorySegment dst, long dstOffset) {
        for (int i = 0; i < count; i++) {
            long size = iov[i].byteSize();
            MemorySegment.copy(iov[i], 0, dst, dstOffset, size);
            dstOffset += size;
        }
    }

    /** Copies {@code n} bytes to a receive buffer ({@code dst}: a segment or an ShmIov) at byte {@code offset}. */
    static void scatter(MemorySegment src, long srcOffset, Object dst, long offset, long n) {
        if (dst instanceof MemorySegment d) {
            MemorySegment.copy(src, srcOffset, d, offset, n);
            return;
        }
        ShmIov v = (ShmIov) dst;
        for (int i = 0; i < v.count && n > 0; i++) {
            long size = v.segments[i].byteSize();
            if (offset >= size) {
                offset -= size;
                continue;
            }
            long piece = Math.min(size - offset, n);
            MemorySegment.copy(src, srcOffset, v.segments[i], offset, piece);
            srcOffset += piece;
            n -= piece;
            offset = 0;
        }
    }

    /** The address a completion reports for a receive buffer: its first native segment's, else 0. */
    static long address(Object dst) {
        MemorySegment first = dst instanceof MemorySegment d ? d : ((ShmIov) dst).segments[0];
        return first != null && first.isNative() ? first.address() : 0;
    }

    /** A process_vm_readv/writev result (0 or -errno) as the status a completion or ACK carries. */
    static int cmaStatus(int rc) {
        return switch (-rc) {
            case 0 -> 0;
            case Errno.ESRCH -> Errno.ECONNRESET; // the peer is gone
            case Errno.EFAULT -> Errno.EFAULT;
            case Errno.EPERM -> Errno.EPERM;
            default -> Errno.EIO;
        };
    }
}
