package io.jfabric.provider.rxm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/**
 * A sender process for the N-to-1 test: connects (on demand) to the receiver whose address is given in
 * hex, sends {@code count} tagged messages of {@code size} bytes carrying (sender id, sequence), waits for
 * every send completion, prints "SENT" and exits. Usage: {@code addressHex senderId count size}.
 */
public final class RxmSenderMain {
    public static void main(String[] args) {
        byte[] addr = HexFormat.of().parseHex(args[0]);
        int id = Integer.parseInt(args[1]);
        int count = Integer.parseInt(args[2]);
        int size = Integer.parseInt(args[3]);
        try (RxmNode n = new RxmNode(); Arena arena = Arena.ofShared()) {
            long dest = n.insert(addr);
            MemorySegment[] bufs = new MemorySegment[count];
            for (int i = 0; i < count; i++) {
                bufs[i] = arena.allocate(size);
                fill(bufs[i], i);
                bufs[i].set(ValueLayout.JAVA_INT, 0, id);
                bufs[i].set(ValueLayout.JAVA_INT, 4, i);
                MemorySegment b = bufs[i];
                Integer ctx = i;
                int rc = RxmNode.retry(() -> n.ep.tsend(b, null, dest, ((long) id << 32) | ctx, ctx), 60_000, n);
                if (rc != 0) {
                    System.out.println("SEND FAILED " + rc);
                    System.exit(1);
                }
            }
            if (!RxmNode.await(() -> n.completions.size() + n.errors.size() >= count, 60_000, n) || !n.errors.isEmpty()) {
                System.out.println("COMPLETIONS FAILED " + n.errors);
                System.exit(1);
            }
            System.out.println("SENT");
        }
        System.exit(0);
    }

    /** Bytes from 8 on: a pattern of the message's sequence number, for receivers that check every byte. */
    static void fill(MemorySegment b, int seq) {
        for (long k = 8; k < b.byteSize(); k++) {
            b.set(ValueLayout.JAVA_BYTE, k, (byte) (k * 7 + seq));
        }
    }
}
