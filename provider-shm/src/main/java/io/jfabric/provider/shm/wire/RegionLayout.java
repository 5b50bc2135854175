package io.jfabric.provider.shm.wire;

import io.jfabric.provider.shm.BouncePool;
import io.jfabric.provider.shm.MpscRing;

/**
 * Where things live in an endpoint's shared-memory region. The region starts with a one-page
 * header, then the receive ring (data plus trailer), then the bounce pool's slot states and its
 * page-aligned slots. All offsets are recorded in the header so an opener checks them rather than
 * trusting its own constants.
 *
 * <p>Header fields (little-endian, native order):
 * <pre>
 *   0 long magic "JFABSHM1" (written last, with release: a reader that sees it sees the rest)
 *   8 int  version          12 int  header length
 *  16 long owner pid        24 long owner start time (/proc/pid/stat field 22)
 *  32 long region length    40 long ring offset
 *  48 int  ring capacity    52 int  flags
 *  56 long bounce offset    64 int  bounce slot size   68 int bounce slot count
 *  72 long owner's virtual address of this mapping (target of the CMA probe)
 *  80 int  name length      84 name bytes (at most 255)
 * 512 int  doorbell (futex word, alone on its cache lines)
 * 640 long closed flag (1 once the owner has closed the endpoint)
 * 768 int  close notices: bumped by a peer as it closes an endpoint of a domain that has this region mapped (it
 *      then rings the doorbell), so that the owner looks for the peers it waits on at once
 * 2048 long[32] split-copy words, one per cache line (see ShmSplitCopy): a sender claims here the half of a
 *      large CMA message that the owner, its receiver, offered it to write
 * </pre>
 */
public record RegionLayout(int ringCapacity, int bounceSlotSize, int bounceSlotCount) {

    public static final long MAGIC = 0x314D48534241464AL; // "JFABSHM1" in little-endian bytes
    /** 2: INLINE commands use the short header and records are padded to whole cache lines (Wire). */
    /** 3: ring headers carry their position plus one (MpscRing.stamp). */
    /** 4: the split-copy words and the PUSH command (ShmSplitCopy). */
    public static final int VERSION = 4;
    public static final int HEADER_LENGTH = 4096;
    public static final int PAGE = 4096;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int HEADER_LENGTH_OFFSET = 12;
    public static final int PID_OFFSET = 16;
    public static final int START_TIME_OFFSET = 24;
    public static final int REGION_LENGTH_OFFSET = 32;
    public static final int RING_OFFSET_OFFSET = 40;
    public static final int RING_CAPACITY_OFFSET = 48;
    public static final int FLAGS_OFFSET = 52;
    public static final int BOUNCE_OFFSET_OFFSET = 56;
    public static final int BOUNCE_SLOT_SIZE_OFFSET = 64;
    public static final int BOUNCE_SLOT_COUNT_OFFSET = 68;
    public static final int BASE_ADDRESS_OFFSET = 72;
    public static final int NAME_LENGTH_OFFSET = 80;
    public static final int NAME_OFFSET = 84;
    public static final int MAX_NAME_LENGTH = 255;
    public static final int DOORBELL_OFFSET = 512;
    public static final int CLOSED_OFFSET = 640;
    public static final int CLOSE_NOTICES_OFFSET = 768;
    public static final int SPLIT_WORDS_OFFSET = 2048;
    public static final int SPLIT_WORD_STRIDE = 64;
    public static final int SPLIT_WORDS = 32;

    public static final int MAX_RING_CAPACITY = 1 << 28;
    public static final int MAX_BOUNCE_SLOT_SIZE = 1 << 24;
    public static final int MAX_BOUNCE_SLOTS = 1 << 16;

    public RegionLayout {
        if (ringCapacity < 4096 || ringCapacity > MAX_RING_CAPACITY || Integer.bitCount(ringCapacity) != 1) {
            throw new IllegalArgumentException("ring capacity must be a power of two from 4 KiB to 256 MiB, got "
                    + ringCapacity);
        }
        if (bounceSlotSize < PAGE || bounceSlotSize > MAX_BOUNCE_SLOT_SIZE || bounceSlotSize % PAGE != 0) {
            throw new IllegalArgumentException("bounce slot size must be a multiple of 4 KiB up to 16 MiB, got "
                    + bounceSlotSize);
        }
        if (bounceSlotCount < 1 || bounceSlotCount > MAX_BOUNCE_SLOTS) {
            throw new IllegalArgumentException("bounce slot count must be 1.." + MAX_BOUNCE_SLOTS + ", got "
                    + bounceSlotCount);
        }
    }

    public long ringOffset() {
        return HEADER_LENGTH;
    }

    public long ringSegmentLength() {
        return MpscRing.segmentSize(ringCapacity);
    }

    public long bounceOffset() {
        return align(ringOffset() + ringSegmentLength(), PAGE);
    }

    public long bounceLength() {
        return BouncePool.segmentSize(bounceSlotSize, bounceSlotCount);
    }

    public long regionLength() {
        return align(bounceOffset() + bounceLength(), PAGE);
    }

    public static long align(long value, long alignment) {
        return (value + alignment - 1) & -alignment;
    }
}
