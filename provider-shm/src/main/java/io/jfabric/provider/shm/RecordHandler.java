package io.jfabric.provider.shm;

import java.lang.foreign.MemorySegment;

/**
 * Receives the records an {@link MpscRing} consumer reads. Implementations are long-lived objects
 * (one per endpoint), so reading allocates nothing.
 */
public interface RecordHandler {

    /**
     * One committed record. The payload stays valid only until this method returns, because the
     * ring space is handed back to producers right after.
     *
     * @param type the producer's record type (never {@link MpscRing#PADDING_TYPE})
     * @param buffer the whole ring segment
     * @param offset where the payload starts within {@code buffer}
     * @param length the payload length in bytes (already checked to lie inside the ring)
     * @return true when the record was consumed; false to leave it (and all after it) in the ring
     *     for a later read, e.g. when the consumer has run out of buffers
     */
    boolean onRecord(int type, MemorySegment buffer, long offset, int length);

    /**
     * A record header failed validation and was dropped (no payload was read).
     *
     * @param position the ring position of the bad header
     * @param length the length the header claimed
     */
    default void onCorruptRecord(long position, int length) {
    }
}
