package io.jfabric.provider.shm.wire;

import io.jfabric.provider.shm.MpscRing;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The shm command format: what a sender writes into the receiver's ring (libfabric's
 * {@code smr_cmd}, with jfabric's own layout). Every command starts with a 64-byte header; an
 * inline message's bytes follow it.
 *
 * <pre>
 *  0 long sender id (sender pid &lt;&lt; 32 | its endpoint sequence number; names its region)
 *  8 long tag                16 long remote CQ data
 * 24 int  flags              28 int  status (ACK) / unused
 * 32 long total length       40 long op id (sender's pending operation, echoed in the ACK)
 * 48 long address            (CMA: sender's buffer; BOUNCE: slot index; RMA: target address)
 * 56 long key / address 2    (RMA: key; RMA initiator buffer is in 'address' of the ACK path)
 * 64 ...  (nothing for the other commands: INLINE uses the short form below)
 * </pre>
 *
 * <p>INLINE commands use a short header so that a 64-byte message and its ring header fill exactly two
 * cache lines (the receiver pulls two lines per message, not three):
 * <pre>
 *  0 long sender id           8 long tag              16 long remote CQ data
 * 24 int  flags              28 int  payload length  32 ...  payload
 * </pre>
 * Every record is padded to a whole number of 64-byte lines ({@link #recordPayload}), so records start
 * on a line boundary and a record never shares its first line, the one the receiver polls, with the
 * previous record.
 */
public final class Wire {

    public static final int INLINE = 1;
    public static final int BOUNCE = 2;
    public static final int CMA = 3;
    public static final int ACK = 4;
    public static final int RMA_WRITE = 5;
    public static final int RMA_READ = 6;
    /** Large message without CMA: the receiver pulls it through the sender's bounce slots. */
    public static final int RTS = 7;
    /** Receiver to sender: copy [ADDRESS, ADDRESS + LENGTH) of op OP_ID into a slot; KEY is the receiver's pull id. */
    public static final int PULL = 8;
    /** Sender to receiver: a pulled chunk in slot ADDRESS, LENGTH bytes, at message offset TAG, for pull OP_ID. */
    public static final int CHUNK = 9;
    /** An atomic operation (ShmAtomic): the RMA header, then its datatype, op, kind and count, then operands. */
    public static final int ATOMIC = 10;
    /** Target to initiator: the status and previous elements of fetch/compare op OP_ID (LENGTH bytes at HEADER). */
    public static final int ATOMIC_RESULT = 11;
    /**
     * The receiver of a large CMA message asks its sender to write part of it straight into the receive buffer
     * (process_vm_writev) while the receiver reads the rest: OP_ID the sender's op, ADDRESS the part's offset in
     * the message, LENGTH its bytes, DATA the receive buffer's address for it, KEY the split-copy word's index in
     * the receiver's region and TAG the value the word holds while the offer stands (ShmSplitCopy).
     */
    public static final int PUSH = 12;

    public static final int FLAG_TAGGED = 1;
    public static final int FLAG_CQ_DATA = 2;
    /** RMA_WRITE of an inject: the bytes follow the header at {@link #RMA_HEADER}; LOCAL_ADDRESS is 0. */
    public static final int FLAG_INLINE_DATA = 4;
    /**
     * RMA with several buffers or ranges: at {@link #VECTOR_LOCAL_COUNT} and {@link #VECTOR_REMOTE_COUNT} their
     * counts, from {@link #VECTOR_ENTRIES} the initiator's buffers (address, length), then the target's ranges
     * (address, length, key); LENGTH is the total; ADDRESS, KEY and LOCAL_ADDRESS are unused.
     */
    public static final int FLAG_VECTOR = 8;

    public static final int SENDER = 0;
    public static final int TAG = 8;
    public static final int DATA = 16;
    public static final int FLAGS = 24;
    public static final int STATUS = 28;
    public static final int LENGTH = 32;
    public static final int OP_ID = 40;
    public static final int ADDRESS = 48;
    public static final int KEY = 56;
    public static final int HEADER = 64;

    /** INLINE: the payload length (int) and where the payload starts. */
    public static final int INLINE_LENGTH = 28;
    public static final int INLINE_HEADER = 32;
    public static final int LINE = 64;

    /**
     * The ring payload length to claim for a command of {@code commandLength} bytes: padded so that the
     * record (ring header included) is a whole number of cache lines.
     */
    public static int recordPayload(int commandLength) {
        return ((MpscRing.HEADER_LENGTH + commandLength + LINE - 1) & -LINE) - MpscRing.HEADER_LENGTH;
    }

    /** RMA commands carry the target address in ADDRESS, the key in KEY and the initiator buffer here. */
    public static final int LOCAL_ADDRESS = 64;
    public static final int RMA_HEADER = 72;
    /** Vector RMA ({@link #FLAG_VECTOR}): the counts, then the entries. */
    public static final int VECTOR_LOCAL_COUNT = 72;
    public static final int VECTOR_REMOTE_COUNT = 76;
    public static final int VECTOR_ENTRIES = 80;
    public static final int VECTOR_LOCAL_ENTRY = 16;
    public static final int VECTOR_REMOTE_ENTRY = 24;
    /** ATOMIC: ADDRESS is the target address, KEY the key, LENGTH the operands' bytes; these four ints follow. */
    public static final int ATOMIC_DATATYPE = 64;
    public static final int ATOMIC_OP = 68;
    public static final int ATOMIC_KIND = 72;
    public static final int ATOMIC_COUNT = 76;
    /** ATOMIC: the operands start here, the compare operands right after them. */
    public static final int ATOMIC_HEADER = 80;

    private Wire() {
    }

    public static long getLong(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
    }

    public static int getInt(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_INT_UNALIGNED, at);
    }

    public static void putLong(MemorySegment s, long at, long v) {
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, at, v);
    }

    public static void putInt(MemorySegment s, long at, int v) {
        s.set(ValueLayout.JAVA_INT_UNALIGNED, at, v);
    }

    public static long senderId(long pid, int seq) {
        return (pid << 32) | (seq & 0xffffffffL);
    }
}
