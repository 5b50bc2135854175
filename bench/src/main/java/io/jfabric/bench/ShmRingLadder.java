package io.jfabric.bench;

import io.jfabric.provider.shm.MpscRing;
import io.jfabric.provider.shm.RecordHandler;
import io.jfabric.provider.shm.wire.Wire;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The Java rungs of bench/shm-java-ladder: one side of a 64-byte ping-pong between two JVMs over a shared file
 * in /dev/shm, with less and less of jfabric's shm provider in it, so that each rung's distance from the one
 * below is one layer's cost:
 * <ul>
 *   <li>{@code line}: floors.c's two-line floor in Java (a ping line and a pong line, 128 bytes apart, each
 *       side spinning on the other's): what the JVM adds to the hardware's cache-line hand-off;</li>
 *   <li>{@code ring}: each side owns one of the provider's {@link MpscRing}s and the other writes 64-byte
 *       messages into it as the provider's inline protocol does (its 32-byte command header, the record
 *       padded to two cache lines, payload copied in and out): the ring and the message's second line;</li>
 *   <li>{@code ring16}: the same with 16-byte messages, whose records fit one cache line: the ring alone;</li>
 * </ul>
 * Above them bench/shm-java-ladder runs {@code jfabric pingpong -p shm}: the provider's matching, its CQ and
 * the tool. The sides meet through files in a rendezvous directory; the server creates and maps the shared
 * file, the client maps it once the server says it is ready. The client prints the one-way microseconds.
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar io.jfabric.bench.ShmRingLadder
 *     line|ring|ring16 server|client &lt;dir&gt; &lt;iterations&gt;</pre>
 */
public final class ShmRingLadder {
    /** The message size: 64 B in {@code ring}; 16 B in {@code ring16}, whose record is then one cache line. */
    private static int size = 64;
    private static final int WARMUP = 200_000;
    private static final int RING_BYTES = 1 << 16;
    /** Each ring starts on its own page; the two lines of {@code line} share the first. */
    private static final long RING_A = 4096;
    private static final long RING_B = RING_A + ((MpscRing.segmentSize(RING_BYTES) + 4095) & -4096);
    private static final long FILE_BYTES = RING_B + MpscRing.segmentSize(RING_BYTES);
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private ShmRingLadder() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 4 || !(args[0].equals("line") || args[0].startsWith("ring"))) {
            System.err.println("usage: ShmRingLadder line|ring|ring16 server|client <dir> <iterations>");
            System.exit(2);
        }
        boolean server = args[1].equals("server");
        Path dir = Path.of(args[2]);
        int iterations = Integer.parseInt(args[3]);
        MemorySegment shared = map(dir, server);
        size = args[0].equals("ring16") ? 16 : 64;
        long nanos = args[0].equals("line") ? line(shared, server, iterations) : ring(shared, server, iterations);
        if (!server) {
            System.out.printf(Locale.ROOT, "%.4f%n", nanos / 1000.0 / iterations / 2);
        }
    }

    private static MemorySegment map(Path dir, boolean server) throws IOException, InterruptedException {
        Path file = dir.resolve("rings");
        Path ready = dir.resolve("ready");
        if (server) {
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                f.setLength(FILE_BYTES);
            }
        } else {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!Files.exists(ready)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("the server side never made " + file);
                }
                Thread.sleep(5);
            }
        }
        MemorySegment s;
        try (FileChannel ch = FileChannel.open(file, java.nio.file.StandardOpenOption.READ,
                java.nio.file.StandardOpenOption.WRITE)) {
            s = ch.map(FileChannel.MapMode.READ_WRITE, 0, FILE_BYTES, Arena.global());
        }
        if (server) {
            Files.writeString(ready, "");
        }
        return s;
    }

    /** floors.c's shm2: the client writes i on the ping line and waits for i on the pong line. */
    private static long line(MemorySegment s, boolean server, int iterations) {
        long total = WARMUP + (long) iterations;
        long t0 = 0;
        for (long i = 1; i <= total; i++) {
            if (server) {
                while ((long) LONG.getAcquire(s, 0L) != i) {
                    // spin
                }
                LONG.setRelease(s, 128L, i);
            } else {
                if (i == WARMUP + 1) {
                    t0 = System.nanoTime();
                }
                LONG.setRelease(s, 0L, i);
                while ((long) LONG.getAcquire(s, 128L) != i) {
                    // spin
                }
            }
        }
        return System.nanoTime() - t0;
    }

    private static long ring(MemorySegment s, boolean server, int iterations) {
        MpscRing toServer = new MpscRing(s.asSlice(RING_A, MpscRing.segmentSize(RING_BYTES)));
        MpscRing toClient = new MpscRing(s.asSlice(RING_B, MpscRing.segmentSize(RING_BYTES)));
        MpscRing mine = server ? toServer : toClient;
        MpscRing theirs = server ? toClient : toServer;
        MemorySegment out = Arena.global().allocate(64, 64);
        Receiver in = new Receiver(Arena.global().allocate(64, 64));
        long total = WARMUP + (long) iterations;
        long t0 = 0;
        for (long i = 0; i < total; i++) {
            if (server) {
                while (mine.read(in, 1) == 0) {
                    // spin
                }
                send(theirs, out, i);
            } else {
                if (i == WARMUP) {
                    t0 = System.nanoTime();
                }
                send(theirs, out, i);
                while (mine.read(in, 1) == 0) {
                    // spin
                }
            }
        }
        if (in.received != total) {
            throw new IllegalStateException("received " + in.received + " of " + total + " messages");
        }
        return System.nanoTime() - t0;
    }

    /** What ShmInline.send writes: the payload, then the command header, then the ring header (publish). */
    private static void send(MpscRing r, MemorySegment payload, long seq) {
        int recordLength = Wire.recordPayload(Wire.INLINE_HEADER + size);
        long position;
        while ((position = r.claim(recordLength)) == MpscRing.FULL) {
            // the peer has not read yet: spin
        }
        long at = r.payloadOffset(position);
        MemorySegment b = r.buffer();
        MemorySegment.copy(payload, 0, b, at + Wire.INLINE_HEADER, size);
        Wire.putLong(b, at + Wire.SENDER, 1);
        Wire.putLong(b, at + Wire.TAG, seq);
        Wire.putLong(b, at + Wire.DATA, 0);
        Wire.putInt(b, at + Wire.FLAGS, 0);
        Wire.putInt(b, at + Wire.INLINE_LENGTH, size);
        r.publish(position, Wire.INLINE, recordLength);
    }

    /** What the provider's receive does with the bytes: reads the command header and copies the payload out. */
    private static final class Receiver implements RecordHandler {
        private final MemorySegment into;
        long received;

        Receiver(MemorySegment into) {
            this.into = into;
        }

        @Override
        public boolean onRecord(int type, MemorySegment s, long at, int length) {
            int n = Wire.getInt(s, at + Wire.INLINE_LENGTH);
            if (type != Wire.INLINE || n != size || Wire.getLong(s, at + Wire.TAG) != received) {
                throw new IllegalStateException("unexpected record: type " + type + ", length " + n);
            }
            MemorySegment.copy(s, at + Wire.INLINE_HEADER, into, 0, n);
            received++;
            return true;
        }

        @Override
        public void onCorruptRecord(long position, int length) {
            throw new IllegalStateException("corrupt record at " + position + ", length " + length);
        }
    }
}
