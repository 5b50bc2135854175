package io.jfabric.provider.tcp;

import io.jfabric.Access;
import io.jfabric.Errno;
import io.jfabric.MrMode;

import java.nio.ByteBuffer;

/**
 * One connection's view of the domain's {@link MrRegistry}: checks key, access and bounds as
 * {@code ofi_mr_map_verify} does (EINVAL for an unknown key or a range outside the region, EACCES for
 * missing access) and remembers why the last check failed. Without FI_MR_VIRT_ADDR the wire address is an
 * offset from the region's registered {@code offset}; with it, a virtual address inside the segment.
 */
final class EndpointRmaTarget implements RmaTarget {
    private final MrRegistry registry;
    private final boolean virtAddr;
    private int lastError;
    private String lastReason = "";

    EndpointRmaTarget(MrRegistry registry, int mrMode) {
        this.registry = registry;
        this.virtAddr = (mrMode & MrMode.VIRT_ADDR) != 0;
    }

    @Override
    public ByteBuffer resolve(long key, long addr, long len, long access, SegmentView slot) {
        TcpMemoryRegion mr = registry.find(key);
        if (mr == null || mr.isClosed()) {
            return refuse(Errno.EINVAL, "no memory region with key " + key);
        }
        if ((mr.access() & access) != access) {
            return refuse(Errno.EACCES, "key " + key + " lacks " + Access.toString(access));
        }
        long base = virtAddr ? mr.segment().address() : mr.offset();
        long rel = addr - base;
        long size = mr.segment().byteSize();
        if (len < 0 || rel < 0 || rel > size || len > size - rel) {
            return refuse(Errno.EINVAL, "range [" + addr + ", +" + len + ") is outside the region of key " + key);
        }
        return slot.of(mr, rel, len);
    }

    private ByteBuffer refuse(int errno, String reason) {
        lastError = errno;
        lastReason = reason;
        return null;
    }

    @Override
    public int lastError() {
        return lastError;
    }

    @Override
    public String lastReason() {
        return lastReason;
    }
}
