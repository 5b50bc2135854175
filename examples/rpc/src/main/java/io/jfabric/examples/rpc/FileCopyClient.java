package io.jfabric.examples.rpc;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.examples.rpc.Wire.ChunkReply;
import io.jfabric.examples.rpc.Wire.ChunkRequest;
import io.jfabric.examples.rpc.Wire.MutableLong;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.zip.CRC32C;

/**
 * The client of the file-copy example (Mercury's bulk example, client side): writes a file to an
 * {@link RpcServer} chunk by chunk (the server pulls each chunk from registered memory), reads it back
 * (the server pushes each chunk), stores what came back next to the original as {@code <file>.readback}
 * and compares CRC32C checksums. Up to {@code --window} chunks are in flight at once.
 *
 * <pre>
 * java ... FileCopyClient -p libfabric:shm --addr-file /tmp/srv.addr --file data.bin [--shutdown]
 * </pre>
 * Exit status: 0 when the checksums match, 1 when they differ, 2 on an error.
 */
public final class FileCopyClient implements AutoCloseable {
    static final String USAGE = """
            usage: FileCopyClient -p PROVIDER (--addr-file FILE | --addr HEX) --file FILE
                                  [--chunk 1M] [--window 4] [--timeout MS] [--shutdown]
              --shutdown   ask the server to exit afterwards""";

    private final RpcEngine engine;
    private final FileRpcs rpcs;
    private final Target target;
    private final Arena arena = Arena.ofShared();
    private final ChunkSlot[] window;
    private final long chunk;
    private final long timeoutMillis;
    private int failure;
    private String failureWhat;

    /** One chunk in flight: its registered buffer and where it belongs. */
    private final class ChunkSlot implements ResponseCallback<ChunkReply> {
        final BulkHandle bulk;
        final ChunkRequest request = new ChunkRequest();
        boolean busy;
        int expectedCrc;
        FileChannel readback;

        ChunkSlot(BulkHandle bulk) {
            this.bulk = bulk;
            bulk.describe(request.bulk);
        }

        @Override
        public void onResponse(long requestId, int status, ChunkReply out, Object arg) {
            busy = false;
            if (status < 0) {
                fail(-status, (readback == null ? "write" : "read") + " of the chunk at " + request.offset);
                return;
            }
            if (readback == null) {
                if (out.length != request.length || out.crc != expectedCrc) {
                    fail(Errno.EIO, "server stored chunk at " + request.offset + " with crc " + Integer.toHexString(out.crc)
                            + " / " + out.length + " B, sent " + Integer.toHexString(expectedCrc) + " / " + request.length + " B");
                }
                return;
            }
            MemorySegment data = bulk.segment().asSlice(0, out.length);
            CRC32C c = new CRC32C();
            c.update(data.asByteBuffer());
            if ((int) c.getValue() != out.crc) {
                fail(Errno.EIO, "chunk at " + request.offset + " arrived with crc " + Long.toHexString(c.getValue())
                        + ", server pushed " + Integer.toHexString(out.crc));
                return;
            }
            try {
                ByteBuffer bb = data.asByteBuffer();
                long pos = request.offset;
                while (bb.hasRemaining()) {
                    pos += readback.write(bb, pos);
                }
            } catch (IOException e) {
                fail(Errno.EIO, "writing the read-back file: " + e.getMessage());
            }
        }
    }

    public FileCopyClient(RpcEngine engine, byte[] serverAddress, long chunk, int windowSize, long timeoutMillis) {
        this.engine = engine;
        this.rpcs = new FileRpcs(engine);
        this.chunk = chunk;
        this.timeoutMillis = timeoutMillis;
        this.target = engine.lookup(serverAddress, timeoutMillis);
        this.window = new ChunkSlot[windowSize];
        for (int i = 0; i < windowSize; i++) {
            window[i] = new ChunkSlot(engine.bulkRegister(arena.allocate(chunk, 4096)));
        }
    }

    public Target target() {
        return target;
    }

    public FileRpcs rpcs() {
        return rpcs;
    }

    private void fail(int errno, String what) {
        if (failure == 0) {
            failure = errno;
            failureWhat = what;
        }
    }

    /** Copies {@code file} to the server under {@code name}. */
    public void write(Path file, String name) throws IOException {
        long handle = Sync.call(engine, target, rpcs.open, name, timeoutMillis, v -> new MutableLong().set(v.value)).value;
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = in.size();
            pump(size, handle, (slot, offset, length) -> {
                ByteBuffer bb = slot.bulk.segment().asSlice(0, length).asByteBuffer();
                long pos = offset;
                while (bb.hasRemaining()) {
                    int n = in.read(bb, pos);
                    if (n < 0) {
                        throw new IOException(file + " shrank while being copied");
                    }
                    pos += n;
                }
                CRC32C c = new CRC32C();
                c.update(slot.bulk.segment().asSlice(0, length).asByteBuffer());
                slot.expectedCrc = (int) c.getValue();
                slot.readback = null;
                return rpcs.write;
            });
        }
        lastHandle = handle;
    }

    private long lastHandle = -1;

    /** Reads {@code size} bytes of the file written last back into {@code out}. */
    public void readBack(long size, Path out) throws IOException {
        try (FileChannel rb = FileChannel.open(out, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            pump(size, lastHandle, (slot, offset, length) -> {
                slot.readback = rb;
                return rpcs.read;
            });
        }
    }

    @FunctionalInterface
    private interface ChunkStep {
        Rpc<ChunkRequest, ChunkReply> prepare(ChunkSlot slot, long offset, long length) throws IOException;
    }

    private void pump(long size, long handle, ChunkStep step) throws IOException {
        long offset = 0;
        while (failure == 0) {
            boolean busy = false;
            for (ChunkSlot s : window) {
                if (!s.busy && offset < size) {
                    long len = Math.min(chunk, size - offset);
                    Rpc<ChunkRequest, ChunkReply> rpc = step.prepare(s, offset, len);
                    s.request.file = (int) handle;
                    s.request.offset = offset;
                    s.request.length = len;
                    long id = engine.forward(target, rpc, s.request, s.bulk, timeoutMillis, s, null);
                    if (id < 0) {
                        fail((int) -id, "forwarding " + rpc.name());
                        break;
                    }
                    s.busy = true;
                    offset += len;
                }
                busy |= s.busy;
            }
            if (!busy && offset >= size) {
                break;
            }
            engine.progress(100);
            engine.trigger(64);
        }
        // a failure leaves nothing behind: wait (bounded by the request timeout) for what is still in flight
        long until = System.nanoTime() + (timeoutMillis + 2000) * 1_000_000L;
        while (anyBusy() && System.nanoTime() < until) {
            engine.progress(100);
            engine.trigger(64);
        }
        if (failure != 0) {
            throw new FabricException(failure, failureWhat);
        }
    }

    private boolean anyBusy() {
        for (ChunkSlot s : window) {
            if (s.busy) {
                return true;
            }
        }
        return false;
    }

    public void shutdownServer() {
        Sync.call(engine, target, rpcs.shutdown, null, timeoutMillis, v -> v);
    }

    /** CRC32C of a whole file. */
    public static long checksum(Path file) throws IOException {
        CRC32C c = new CRC32C();
        try (FileChannel fc = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer bb = ByteBuffer.allocateDirect(1 << 20);
            while (fc.read(bb) >= 0) {
                bb.flip();
                c.update(bb);
                bb.clear();
            }
        }
        return c.getValue();
    }

    @Override
    public void close() {
        for (ChunkSlot s : window) {
            s.bulk.release();
        }
        arena.close();
    }

    public static void main(String[] argv) {
        int exit;
        try {
            exit = run(argv);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            exit = 2;
        } catch (FabricException | IOException e) {
            System.err.println("FAILED " + e.getMessage());
            exit = 2;
        }
        System.exit(exit);
    }

    static int run(String[] argv) throws IOException {
        Args a = new Args(argv, USAGE);
        String provider = a.require("-p", "--provider", USAGE);
        Path file = Path.of(a.require("--file", null, USAGE));
        byte[] addr;
        if (a.has("--addr")) {
            addr = HexFormat.of().parseHex(a.get("--addr", null, null).trim());
        } else {
            addr = HexFormat.of().parseHex(Files.readString(Path.of(a.require("--addr-file", null, USAGE))).trim());
        }
        long chunk = a.getLong("--chunk", 1 << 20);
        int windowSize = (int) a.getLong("--window", 4);
        long timeout = a.getLong("--timeout", 10_000);
        try (RpcEngine engine = RpcEngine.open(provider, EngineOptions.defaults());
             FileCopyClient client = new FileCopyClient(engine, addr, chunk, windowSize, timeout)) {
            long size = Files.size(file);
            long t0 = System.nanoTime();
            client.write(file, file.getFileName().toString());
            long t1 = System.nanoTime();
            Path back = file.resolveSibling(file.getFileName() + ".readback");
            client.readBack(size, back);
            long t2 = System.nanoTime();
            long c1 = checksum(file);
            long c2 = checksum(back);
            System.out.printf("write %d B in %.1f ms, read back in %.1f ms over %s%n", size, (t1 - t0) / 1e6,
                    (t2 - t1) / 1e6, engine.providerName());
            if (a.has("--shutdown")) {
                client.shutdownServer();
            }
            if (c1 != c2 || Files.size(back) != size) {
                System.out.printf("MISMATCH crc32c %08x != %08x%n", c1, c2);
                return 1;
            }
            System.out.printf("OK %d bytes crc32c=%08x%n", size, c1);
            return 0;
        }
    }
}
