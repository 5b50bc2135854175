package io.jfabric.provider.shm;

import io.jfabric.provider.shm.ffi.Futex;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A many-producer, one-consumer ring of variable-length records on a (shared, mapped)
 * {@link MemorySegment}, lock-free, following Agrona's {@code ManyToOneRingBuffer} layout:
 * a power-of-two data area followed by a trailer whose tail, cached-head and head positions
 * each sit on their own pair of cache lines, and records whose length is negative while a
 * producer is still writing them. A record that would not fit before the end of the data area is
 * preceded by a padding record that fills the end.
 *
 * <p>Difference from Agrona: each record header also carries its 64-bit ring position. The
 * consumer accepts a header only when that position is the one it expects, so it never needs to
 * zero consumed memory (a stale header from an earlier lap cannot match), and after a corrupt
 * header it can find the next genuine record by scanning for a matching position. Every length
 * is checked against the data area before use, so a corrupt or hostile header is dropped and
 * never causes an access outside the ring.
 *
 * <p>Record header (16 bytes, records aligned to 16): {@code int length} (header included;
 * negative while claimed), {@code int type}, {@code long position + 1} (see {@link #stamp}).
 */
public final class MpscRing {

    /** Record type of padding at the end of the data area; producers must not use it. */
    public static final int PADDING_TYPE = 0;
    public static final int HEADER_LENGTH = 16;
    public static final int ALIGNMENT = 16;

    /** Returned by {@link #tryClaim} when the ring lacks space right now. */
    public static final long FULL = -1;

    static final int TAIL_OFFSET = 128;
    static final int HEAD_CACHE_OFFSET = 256;
    static final int HEAD_OFFSET = 384;
    /**
     * Set by a producer about to sleep until the head passes its record; on the head's second line, which only
     * such producers write, so the consumer's read of it stays a cache hit.
     */
    static final int CONSUME_WAIT_OFFSET = HEAD_OFFSET + 64;
    public static final int TRAILER_LENGTH = 512;
    /** A sleeper waits on the head's low 32 bits (a futex word), which sit at the head's address only here. */
    private static final boolean HEAD_WORD_AT_HEAD = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private static final int LENGTH_FIELD = 0;
    private static final int TYPE_FIELD = 4;
    private static final int POSITION_FIELD = 8;

    /**
     * What a record's header carries in its position field: the position plus one. A fresh ring is zeroed
     * memory, and a zero there would pass for position 0's own stamp, so a consumer could take the first record
     * as ready while its producer was still writing it (length written, type not yet: read as padding and
     * lost). No position stamps as zero.
     */
    private static long stamp(long position) {
        return position + 1;
    }

    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment buffer;
    private final int capacity;
    /** Masks a position to a record index; also clears low bits, so a corrupt position can never make a misaligned access. */
    private final int mask;
    private final long tailAt;
    private final long headCacheAt;
    private final long headAt;
    private final long consumeWaitAt;
    private final int maxPayload;

    private long corruptRecords;

    /**
     * Wraps a segment of {@code capacity + TRAILER_LENGTH} bytes. A fresh region is all zeroes,
     * which is a valid empty ring.
     */
    public MpscRing(MemorySegment buffer) {
        long size = buffer.byteSize();
        long cap = size - TRAILER_LENGTH;
        if (cap < 2 * ALIGNMENT || Long.bitCount(cap) != 1 || cap > (1 << 30)) {
            throw new IllegalArgumentException("ring capacity must be a power of two between 32 B and 1 GiB "
                    + "plus a " + TRAILER_LENGTH + " B trailer, got a segment of " + size + " B");
        }
        if ((buffer.address() & 7) != 0) {
            throw new IllegalArgumentException("ring segment must be 8-byte aligned");
        }
        this.buffer = buffer;
        this.capacity = (int) cap;
        this.mask = (capacity - 1) & -ALIGNMENT;
        this.tailAt = cap + TAIL_OFFSET;
        this.headCacheAt = cap + HEAD_CACHE_OFFSET;
        this.headAt = cap + HEAD_OFFSET;
        this.consumeWaitAt = cap + CONSUME_WAIT_OFFSET;
        this.maxPayload = capacity / 8 - HEADER_LENGTH;
    }

    /** The segment size needed for a ring with {@code capacity} data bytes. */
    public static long segmentSize(int capacity) {
        return (long) capacity + TRAILER_LENGTH;
    }

    public MemorySegment buffer() {
        return buffer;
    }

    public int capacity() {
        return capacity;
    }

    /** The largest payload one record may carry (an eighth of the ring, as Agrona does). */
    public int maxPayloadLength() {
        return maxPayload;
    }

    /**
     * Claims space for a record of {@code payloadLength} bytes.
     *
     * @return the offset of the payload in {@link #buffer()}, to be filled and then passed to
     *     {@link #commit} or {@link #abort}; or {@link #FULL}
     * @throws IllegalArgumentException if the payload exceeds {@link #maxPayloadLength()} or the type is padding
     */
    public long tryClaim(int type, int payloadLength) {
        if (type == PADDING_TYPE) {
            throw new IllegalArgumentException("bad record type " + type + " or length " + payloadLength);
        }
        long position = claim(payloadLength);
        if (position == FULL) {
            return FULL;
        }
        int index = (int) position & mask;
        writeHeader(index, -(HEADER_LENGTH + payloadLength), type, position);
        return index + HEADER_LENGTH;
    }

    /**
     * Claims space for a record of {@code payloadLength} bytes and writes nothing into it (a padding record
     * at the wrap excepted): the producer fills the payload at {@link #payloadOffset} and then
     * {@link #publish}es, which writes the whole header in one go with the position last. Unlike
     * {@link #tryClaim}, the line the consumer polls (the record's first) is then written once, in one
     * burst, instead of once at the claim and again at the commit: a consumer spinning on it pulls it
     * across only when the record is complete (one cache-line transfer fewer per message, and none of
     * the producer's stores to that line waits for the consumer's copy to be invalidated twice).
     *
     * <p>A producer that dies between this claim and the publish leaves a header of an earlier lap, which
     * {@link #unblock()} skips by resynchronising on the next record that carries its own position.
     *
     * @return the record's ring position, or {@link #FULL}
     */
    public long claim(int payloadLength) {
        if (payloadLength < 0 || payloadLength > maxPayload) {
            throw new IllegalArgumentException("bad record length " + payloadLength);
        }
        final int recordLength = HEADER_LENGTH + payloadLength;
        final int required = align(recordLength);
        long head = (long) LONG.getOpaque(buffer, headCacheAt);
        long tail;
        int padding;
        do {
            tail = (long) LONG.getVolatile(buffer, tailAt);
            if (required > capacity - (tail - head)) {
                head = (long) LONG.getVolatile(buffer, headAt);
                if (required > capacity - (tail - head)) {
                    return FULL;
                }
                LONG.setOpaque(buffer, headCacheAt, head);
            }
            padding = 0;
            int tailIndex = (int) tail & mask;
            int toEnd = capacity - tailIndex;
            if (required > toEnd) {
                int headIndex = (int) head & mask;
                if (required > headIndex) {
                    head = (long) LONG.getVolatile(buffer, headAt);
                    headIndex = (int) head & mask;
                    if (required > headIndex || toEnd + required > capacity - (tail - head)) {
                        return FULL;
                    }
                    LONG.setOpaque(buffer, headCacheAt, head);
                }
                padding = toEnd;
            }
        } while (!LONG.compareAndSet(buffer, tailAt, tail, tail + required + padding));

        if (padding != 0) {
            writeHeader((int) tail & mask, padding, PADDING_TYPE, tail);
            tail += padding;
        }
        return tail;
    }

    /** Where the payload of the record claimed at {@code position} (by {@link #claim}) starts in {@link #buffer()}. */
    public long payloadOffset(long position) {
        return ((int) position & mask) + HEADER_LENGTH;
    }

    /** The ring position just past a record claimed at {@code position} with {@code payloadLength} bytes. */
    public static long endOf(long position, int payloadLength) {
        return position + align(HEADER_LENGTH + payloadLength);
    }

    /**
     * Publishes a record claimed with {@link #claim} whose payload is written: length and type, then the
     * position with release, so a consumer that sees the position sees the whole record.
     */
    public void publish(long position, int type, int payloadLength) {
        if (type == PADDING_TYPE) {
            throw new IllegalArgumentException("records may not use the padding type");
        }
        writeHeader((int) position & mask, HEADER_LENGTH + payloadLength, type, position);
    }

    private void writeHeader(int index, int length, int type, long position) {
        // length and type before the position (release): a consumer that sees this lap's
        // position is guaranteed to see this lap's length, never a stale one
        buffer.set(ValueLayout.JAVA_INT, index + LENGTH_FIELD, length);
        buffer.set(ValueLayout.JAVA_INT, index + TYPE_FIELD, type);
        LONG.setRelease(buffer, (long) index + POSITION_FIELD, stamp(position));
    }

    /**
     * The ring position just past the record whose payload is at {@code payloadOffset} (claimed by this
     * thread and not yet consumed): once {@link #consumed} says so for it, the consumer has read it.
     */
    public long endPosition(long payloadOffset) {
        long at = payloadOffset - HEADER_LENGTH;
        long position = (long) LONG.get(buffer, at + POSITION_FIELD) - 1;
        int length = (int) INT.get(buffer, at + LENGTH_FIELD);
        return position + align(Math.abs(length));
    }

    /** Whether the consumer has moved past {@code endPosition} (one load of the head). */
    public boolean consumed(long endPosition) {
        return (long) LONG.getVolatile(buffer, headAt) - endPosition >= 0;
    }

    /**
     * Producer: announces a sleep until the head moves (to learn that a record was consumed), to be followed by a
     * read of {@link #headWord}, a last {@link #consumed} check, {@link #consumeWaiterAnnounced}, and a futex wait on
     * {@link #headWordAddress} for the word read. The consumer's next move of the head clears the announcement and
     * wakes every such sleeper. False where the head's word cannot be slept on.
     */
    public boolean announceConsumeWaiter() {
        if (!HEAD_WORD_AT_HEAD) {
            return false;
        }
        INT.setVolatile(buffer, consumeWaitAt, 1);
        return true;
    }

    /** Whether the announcement still stands; false once a move of the head has woken the sleepers. */
    public boolean consumeWaiterAnnounced() {
        return (int) INT.getVolatile(buffer, consumeWaitAt) != 0;
    }

    /** The low 32 bits of the head, the value a sleeper passes with {@link #headWordAddress}. */
    public int headWord() {
        return (int) INT.getVolatile(buffer, headAt);
    }

    /** The address of the head's low 32 bits in this process's mapping. */
    public long headWordAddress() {
        return buffer.address() + headAt;
    }

    /** Consumer: moves the head, then wakes the producers that sleep until it moves. */
    private void publishHead(long position) {
        LONG.setRelease(buffer, headAt, position);
        if ((int) INT.getVolatile(buffer, consumeWaitAt) != 0) {
            INT.setVolatile(buffer, consumeWaitAt, 0);
            Futex.wake(buffer.address() + headAt, Integer.MAX_VALUE);
        }
    }

    /** Publishes a claimed record to the consumer. */
    public void commit(long payloadOffset) {
        long at = payloadOffset - HEADER_LENGTH + LENGTH_FIELD;
        int length = (int) INT.get(buffer, at);
        INT.setRelease(buffer, at, -length);
    }

    /** Gives up a claimed record; the consumer skips it as padding. */
    public void abort(long payloadOffset) {
        long at = payloadOffset - HEADER_LENGTH;
        int length = (int) INT.get(buffer, at + LENGTH_FIELD);
        buffer.set(ValueLayout.JAVA_INT, at + TYPE_FIELD, PADDING_TYPE);
        INT.setRelease(buffer, at + LENGTH_FIELD, -length);
    }

    /**
     * Reads up to {@code limit} committed records, in order, handing each to {@code handler}, then
     * returns their space to producers. Only one thread may consume.
     *
     * @return the number of records handed over (padding and dropped records not counted)
     */
    public int read(RecordHandler handler, int limit) {
        // The tail is not read here: producers CAS it on every claim, so a consumer that polled it would
        // pull that line back and forth on every message (one more cache-line transfer per message on
        // both sides). The header at the head carries its own position, which says whether a record of
        // this lap is there; a stale header of an earlier lap can never carry it.
        final long head = (long) LONG.get(buffer, headAt);
        long position = head;
        int count = 0;
        try {
            while (count < limit) {
                int index = (int) position & mask;
                if ((long) LONG.getAcquire(buffer, (long) index + POSITION_FIELD) != stamp(position)) {
                    break;
                }
                int length = (int) INT.getAcquire(buffer, (long) index + LENGTH_FIELD);
                if (length <= 0) {
                    break; // claimed, still being written
                }
                if (length < HEADER_LENGTH || length > capacity - index) {
                    corruptRecords++;
                    handler.onCorruptRecord(position, length);
                    position = resync(position);
                    continue;
                }
                int type = (int) INT.get(buffer, (long) index + TYPE_FIELD);
                if (type != PADDING_TYPE) {
                    if (!handler.onRecord(type, buffer, index + HEADER_LENGTH, length - HEADER_LENGTH)) {
                        break;
                    }
                    count++;
                }
                position += align(length);
            }
        } finally {
            if (position != head) {
                publishHead(position);
            }
        }
        return count;
    }

    /**
     * After a corrupt header at {@code bad}: the next position at or before the current tail whose
     * header carries its own position (a genuine record of this lap), or the tail itself.
     */
    private long resync(long bad) {
        long tail = (long) LONG.getVolatile(buffer, tailAt);
        long distance = tail - bad;
        if (distance <= 0 || distance > capacity) {
            return bad + ALIGNMENT; // the tail itself is garbage: step past the bad header only
        }
        for (long p = bad + ALIGNMENT, steps = distance / ALIGNMENT; steps > 0; p += ALIGNMENT, steps--) {
            int index = (int) p & mask;
            if ((long) LONG.getAcquire(buffer, (long) index + POSITION_FIELD) == stamp(p)) {
                return p;
            }
        }
        return tail;
    }

    /**
     * Whether a record is waiting at the head that is not yet readable although producers have
     * claimed space beyond it: a producer is writing it, or died while doing so.
     */
    public boolean headBlocked() {
        long head = (long) LONG.get(buffer, headAt);
        long tail = (long) LONG.getVolatile(buffer, tailAt);
        if (tail == head) {
            return false;
        }
        if (tail - head < 0) {
            return true; // a forged header took the head past the tail (read() does not read the tail)
        }
        int index = (int) head & mask;
        return (long) LONG.getAcquire(buffer, (long) index + POSITION_FIELD) != stamp(head)
                || (int) INT.getAcquire(buffer, (long) index + LENGTH_FIELD) <= 0;
    }

    /**
     * Skips a record a producer claimed but never committed, typically because it was killed
     * (Agrona's {@code unblock}). Call only after {@link #headBlocked()} stayed true for long
     * enough that a live producer would have finished. Consumer thread only.
     *
     * @return whether the head moved
     */
    public boolean unblock() {
        long head = (long) LONG.get(buffer, headAt);
        long tail = (long) LONG.getVolatile(buffer, tailAt);
        if (tail - head < 0) {
            // read() trusts a header that carries its own position and never reads the tail (to keep its
            // cache line out of the consumer's path), so a forged length can carry the head past the tail;
            // the periodic stuck-head check lands here and puts it back where producers are writing
            corruptRecords++;
            publishHead(tail);
            return true;
        }
        if (tail - head == 0 || tail - head > capacity) {
            return false;
        }
        int index = (int) head & mask;
        long stamped = (long) LONG.getAcquire(buffer, (long) index + POSITION_FIELD);
        int length = (int) INT.getAcquire(buffer, (long) index + LENGTH_FIELD);
        long next;
        if (stamped == stamp(head) && length < 0 && -length >= HEADER_LENGTH && -length <= capacity - index
                && align(-length) <= tail - head) {
            next = head + align(-length);
        } else if (stamped != stamp(head)) {
            next = resync(head); // died between claiming and writing the header
        } else {
            return false;
        }
        publishHead(next);
        return true;
    }

    /** Bytes claimed but not yet consumed. */
    public int size() {
        long head = (long) LONG.getVolatile(buffer, headAt);
        long tail = (long) LONG.getVolatile(buffer, tailAt);
        return (int) Math.min(capacity, Math.max(0, tail - head));
    }

    public boolean isEmpty() {
        return (long) LONG.getVolatile(buffer, headAt) == (long) LONG.getVolatile(buffer, tailAt);
    }

    /** Headers dropped as corrupt since this object was created. */
    public long corruptRecords() {
        return corruptRecords;
    }

    public long headPosition() {
        return (long) LONG.getVolatile(buffer, headAt);
    }

    public long tailPosition() {
        return (long) LONG.getVolatile(buffer, tailAt);
    }

    private static int align(int length) {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    @Override
    public String toString() {
        return "MpscRing[capacity=" + capacity + ", head=" + headPosition() + ", tail=" + tailPosition()
                + ", corrupt=" + corruptRecords + "]";
    }
}
