package io.jfabric.spi;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MrAttr;

import java.lang.foreign.MemorySegment;

/**
 * The memory-registration refusals every provider gives in the same words, so an application sees one
 * errno and one remedy whatever provider it runs on. A provider whose {@code domain_attr.mrHeapSegments} is
 * false calls {@link #requireNative} for each segment it registers.
 */
public final class RegistrationChecks {
    private RegistrationChecks() {
    }

    /**
     * Refuses a heap segment: libfabric registers only memory with a fixed address, and a heap array moves
     * with the GC.
     *
     * @param provider the provider name for the message
     * @param segment the segment to register
     * @throws FabricException EINVAL for a heap segment (or null), saying to use a native segment
     */
    public static void requireNative(String provider, MemorySegment segment) {
        if (segment == null || !segment.isNative()) {
            throw new FabricException(Errno.EINVAL, provider + " registers native memory only ("
                    + (segment == null ? "the segment is null" : "this is a heap segment, which the GC may move")
                    + "); allocate the buffer from an Arena, or use a provider whose domain_attr.mrHeapSegments "
                    + "is true");
        }
    }

    /**
     * The checks of {@code fi_mr_regattr} before any provider work: an attr, a valid iov
     * ({@link MrAttr#checkIov()}) and no more segments than {@code limit}.
     *
     * @param provider the provider name for the message
     * @param attr the attributes to check
     * @param limit the domain's mr_iov_limit
     * @return {@code attr}
     * @throws FabricException EINVAL for a null attr, a bad iov or too many segments, ENOSYS for a device iface
     */
    public static MrAttr checkAttr(String provider, MrAttr attr, long limit) {
        if (attr == null) {
            throw new FabricException(Errno.EINVAL, "fi_mr_regattr needs an MrAttr");
        }
        attr.checkIov();
        requireIovCount(provider, attr.iovCount, limit);
        return attr;
    }

    /**
     * Refuses a region of more segments than the domain's {@code mr_iov_limit}.
     *
     * @param provider the provider name for the message
     * @param count the iov_count asked for
     * @param limit the domain's mr_iov_limit
     * @throws FabricException EINVAL when {@code count} exceeds {@code limit}
     */
    public static void requireIovCount(String provider, int count, long limit) {
        if (count > limit) {
            throw new FabricException(Errno.EINVAL, provider + " registers at most " + limit
                    + " segment(s) per region (mr_iov_limit), not " + count
                    + "; register the segments as separate regions");
        }
    }
}
