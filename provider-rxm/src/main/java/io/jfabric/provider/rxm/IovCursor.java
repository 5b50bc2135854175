package io.jfabric.provider.rxm;

import io.jfabric.provider.rxm.wire.RndvHeader;

import java.lang.foreign.MemorySegment;

/**
 * Where a message offset falls in a list of buffers: the buffer's index and the offset inside it. Every
 * protocol walks iovs the same way (SAR cuts a send into segments and reassembles them, rendezvous pairs
 * local buffers with the peer's ranges), so the walk lives here once. A cursor is reusable scratch of the
 * class that owns it, so seeking allocates nothing.
 */
final class IovCursor {
    /** The buffer holding the offset sought; the list's count when the offset is past its end. */
    int index;
    /** The offset inside that buffer. */
    long skip;

    /** Seeks offset {@code off} in the first {@code count} buffers of {@code iov}. */
    IovCursor seek(MemorySegment[] iov, int count, long off) {
        int i = 0;
        long s = off;
        while (i < count && s >= iov[i].byteSize()) {
            s -= iov[i].byteSize();
            i++;
        }
        index = i;
        skip = s;
        return this;
    }

    /** Seeks offset {@code off} in the peer ranges of a rendezvous header. */
    IovCursor seekRemote(MemorySegment rndvHeader, int count, long off) {
        int i = 0;
        long s = off;
        while (i < count && s >= RndvHeader.len(rndvHeader, i)) {
            s -= RndvHeader.len(rndvHeader, i);
            i++;
        }
        index = i;
        skip = s;
        return this;
    }

    /** Gathers {@code len} bytes of the buffers, from message offset {@code offset} on, into {@code dst}. */
    static long gather(MemorySegment[] iov, int count, long offset, MemorySegment dst, long dstOff, long len) {
        return copy(iov, count, offset, dst, dstOff, len, false);
    }

    /** Scatters {@code len} bytes of {@code src} at {@code srcOff} into the buffers from message offset {@code at}. */
    static long scatter(MemorySegment src, long srcOff, MemorySegment[] iov, int count, long at, long len) {
        return copy(iov, count, at, src, srcOff, len, true);
    }

    /** Copies between the buffers (from message offset {@code at}) and {@code flat}; returns the bytes copied. */
    private static long copy(MemorySegment[] iov, int count, long at, MemorySegment flat, long flatOff, long len,
                             boolean intoIov) {
        long done = 0;
        long skip = at;
        for (int i = 0; i < count && done < len; i++) {
            long size = iov[i].byteSize();
            if (skip >= size) {
                skip -= size;
                continue;
            }
            long n = Math.min(size - skip, len - done);
            if (intoIov) {
                MemorySegment.copy(flat, flatOff + done, iov[i], skip, n);
            } else {
                MemorySegment.copy(iov[i], skip, flat, flatOff + done, n);
            }
            done += n;
            skip = 0;
        }
        return done;
    }

    /** The sum of the first {@code count} buffers' sizes. */
    static long length(MemorySegment[] iov, int count) {
        long n = 0;
        for (int i = 0; i < count; i++) {
            n += iov[i].byteSize();
        }
        return n;
    }
}
