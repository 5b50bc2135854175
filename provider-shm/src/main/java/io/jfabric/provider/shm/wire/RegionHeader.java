package io.jfabric.provider.shm.wire;

import io.jfabric.provider.shm.ShmException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The validated header of a region someone else created. Every field an opener will rely on is
 * checked against the file size and this build's layout rules, so a foreign, garbage or
 * wrong-version file is refused with a message saying which.
 */
public record RegionHeader(long pid, long startTime, RegionLayout layout) {

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    

    public static RegionHeader validate(MemorySegment seg, long fileSize, String expectedName, Path path) {
        long magic = (long) LONG.getAcquire(seg, (long) RegionLayout.MAGIC_OFFSET);
        if (magic != RegionLayout.MAGIC) {
            throw refuse(path, magic == 0
                    ? "has no jfabric header (magic is zero): it is not a jfabric region, or its creator died while creating it"
                    : "is not a jfabric shm region (magic 0x" + Long.toHexString(magic) + ")");
        }
        int version = seg.get(ValueLayout.JAVA_INT, RegionLayout.VERSION_OFFSET);
        if (version != RegionLayout.VERSION) {
            throw refuse(path, "has layout version " + version + " but this jfabric speaks version "
                    + RegionLayout.VERSION + "; run the same jfabric version in both processes");
        }
        int headerLength = seg.get(ValueLayout.JAVA_INT, RegionLayout.HEADER_LENGTH_OFFSET);
        long regionLength = seg.get(ValueLayout.JAVA_LONG, RegionLayout.REGION_LENGTH_OFFSET);
        long ringOffset = seg.get(ValueLayout.JAVA_LONG, RegionLayout.RING_OFFSET_OFFSET);
        int ringCapacity = seg.get(ValueLayout.JAVA_INT, RegionLayout.RING_CAPACITY_OFFSET);
        long bounceOffset = seg.get(ValueLayout.JAVA_LONG, RegionLayout.BOUNCE_OFFSET_OFFSET);
        int slotSize = seg.get(ValueLayout.JAVA_INT, RegionLayout.BOUNCE_SLOT_SIZE_OFFSET);
        int slotCount = seg.get(ValueLayout.JAVA_INT, RegionLayout.BOUNCE_SLOT_COUNT_OFFSET);
        if (headerLength != RegionLayout.HEADER_LENGTH) {
            throw refuse(path, "has a header length of " + headerLength + ", expected " + RegionLayout.HEADER_LENGTH);
        }
        RegionLayout layout;
        try {
            layout = new RegionLayout(ringCapacity, slotSize, slotCount);
        } catch (IllegalArgumentException e) {
            throw refuse(path, "has an invalid layout: " + e.getMessage());
        }
        if (regionLength != fileSize || regionLength != layout.regionLength()
                || ringOffset != layout.ringOffset() || bounceOffset != layout.bounceOffset()) {
            throw refuse(path, "has an inconsistent header (region length " + regionLength + ", file size "
                    + fileSize + ", ring at " + ringOffset + ", bounce pool at " + bounceOffset
                    + "); it is corrupt or was truncated");
        }
        int nameLength = seg.get(ValueLayout.JAVA_INT, RegionLayout.NAME_LENGTH_OFFSET);
        if (nameLength < 1 || nameLength > RegionLayout.MAX_NAME_LENGTH) {
            throw refuse(path, "has a bad name length " + nameLength);
        }
        byte[] name = new byte[nameLength];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, RegionLayout.NAME_OFFSET, name, 0, nameLength);
        String recorded = new String(name, StandardCharsets.US_ASCII);
        if (expectedName != null && !recorded.equals(expectedName)) {
            throw refuse(path, "records the name '" + recorded + "', not '" + expectedName
                    + "'; it was copied or renamed and is not the endpoint you asked for");
        }
        long pid = seg.get(ValueLayout.JAVA_LONG, RegionLayout.PID_OFFSET);
        long startTime = seg.get(ValueLayout.JAVA_LONG, RegionLayout.START_TIME_OFFSET);
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            throw refuse(path, "records an impossible owner pid " + pid);
        }
        return new RegionHeader(pid, startTime, layout);
    }

    private static ShmException refuse(Path path, String why) {
        return new ShmException(io.jfabric.Errno.EPROTO, "refusing shm region " + path + ": it " + why);
    }
}
