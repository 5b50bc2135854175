package io.jfabric.examples.rpc;

import io.jfabric.Errno;
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
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The RPC server of the file-copy example (Mercury's bulk example, server side): stores files in a
 * directory; WRITE pulls a chunk from the client's memory with RMA read and writes it to the file, READ
 * reads a chunk and pushes it into the client's memory with RMA write.
 *
 * <pre>
 * java -jar examples-rpc.jar io.jfabric.examples.rpc.RpcServer -p libfabric:shm --addr-file /tmp/srv.addr --dir /tmp/srv
 * </pre>
 * It writes its endpoint address (hex) to the address file and prints {@code ADDR <hex>}, then serves
 * until a SHUTDOWN RPC.
 */
public final class RpcServer implements AutoCloseable {
    static final String USAGE = """
            usage: RpcServer -p PROVIDER [--addr-file FILE] [--dir DIR] [--max-chunk 1M] [--buffers 8]
                             [--progress-thread] [--peer-timeout MS]
              -p, --provider   RDM provider: libfabric:tcp;ofi_rxm, libfabric:shm, tcp;ofi_rxm, shm ...
              --addr-file      where to write this server's address (hex) for clients
              --dir            directory for the files clients write (default: a temporary directory)""";

    private static final System.Logger LOG = System.getLogger("jfabric.examples.rpc");

    private final RpcEngine engine;
    private final Arena arena = Arena.ofShared();
    private final BufferPool buffers;
    private final Path dir;
    private final List<FileChannel> files = new ArrayList<>();
    private final ArrayDeque<ServerOp> freeOps = new ArrayDeque<>();
    private final ArrayDeque<ServerOp> delayed = new ArrayDeque<>();
    private final CRC32C crc = new CRC32C();
    private final MutableLong longOut = new MutableLong();
    private final ChunkReply replyOut = new ChunkReply();
    private volatile boolean running = true;
    private long lastDelayedStatus = 1;
    final FileRpcs rpcs;

    /** One chunk request being served: the request, the buffer it moves through, where it goes. Pooled. */
    private final class ServerOp implements BulkCallback {
        Incoming<ChunkRequest, ChunkReply> request;
        BulkHandle buffer;
        int kind;
        int file;
        long offset;
        long length;
        long dueNanos;

        @Override
        public void onTransfer(int status, Object arg) {
            transferDone(this, status);
        }
    }

    public RpcServer(RpcEngine engine, Path dir, int bufferCount, long maxChunk) {
        this.engine = engine;
        this.dir = dir;
        this.buffers = new BufferPool(engine, arena, bufferCount, maxChunk);
        for (int i = 0; i < engine.options().incomingSlots; i++) {
            freeOps.add(new ServerOp());
        }
        this.rpcs = new FileRpcs(engine, this);
    }

    public RpcEngine engine() {
        return engine;
    }

    public boolean isRunning() {
        return running;
    }

    /** One turn of the server loop: progress, trigger, then any delayed work that is due. */
    public void turn(long progressMillis) {
        engine.progress(progressMillis);
        engine.trigger(64);
        long now = System.nanoTime();
        while (!delayed.isEmpty() && now - delayed.peek().dueNanos >= 0) {
            startPull(delayed.poll());
        }
    }

    // ---- handlers -----------------------------------------------------------------------------------

    void open(Incoming<String, MutableLong> req) {
        String name = req.input();
        Path p = dir.resolve(name).normalize();
        if (!p.startsWith(dir) || name.isEmpty()) {
            req.respondError(Errno.EINVAL);
            return;
        }
        try {
            FileChannel fc = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
            files.add(fc);
            req.respond(longOut.set(files.size() - 1));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "open {0}: {1}", p, e.getMessage());
            req.respondError(Errno.EIO);
        }
    }

    void write(Incoming<ChunkRequest, ChunkReply> req) {
        ServerOp op = prepare(req, FileRpcs.WRITE);
        if (op != null) {
            startPull(op);
        }
    }

    void pull(Incoming<ChunkRequest, ChunkReply> req) {
        ServerOp op = prepare(req, FileRpcs.PULL);
        if (op != null) {
            startPull(op);
        }
    }

    void delayedPull(Incoming<ChunkRequest, ChunkReply> req) {
        ServerOp op = prepare(req, FileRpcs.DELAYED_PULL);
        if (op != null) {
            op.dueNanos = System.nanoTime() + req.input().delayMillis * 1_000_000L;
            delayed.add(op);
        }
    }

    void lastDelayedStatus(Incoming<Void, MutableLong> req) {
        req.respond(longOut.set(lastDelayedStatus));
    }

    void read(Incoming<ChunkRequest, ChunkReply> req) {
        ServerOp op = prepare(req, FileRpcs.READ);
        if (op == null) {
            return;
        }
        MemorySegment seg = op.buffer.segment().asSlice(0, op.length);
        long n;
        try {
            n = readFully(files.get(op.file), seg.asByteBuffer(), op.offset);
        } catch (IOException e) {
            complete(op, -Errno.EIO);
            return;
        }
        op.length = n;
        if (n == 0) {
            transferDone(op, 0);
            return;
        }
        int rc = engine.bulkTransfer(BulkOp.PUSH, req.origin(), req.input().bulk, 0, op.buffer, 0, n, op, null);
        if (rc < 0) {
            complete(op, rc);
        }
    }

    void shutdown(Incoming<Void, Void> req) {
        req.respond(null);
        running = false;
    }

    // ---- chunk machinery ----------------------------------------------------------------------------

    private ServerOp prepare(Incoming<ChunkRequest, ChunkReply> req, int kind) {
        ChunkRequest in = req.input();
        boolean needsFile = kind == FileRpcs.WRITE || kind == FileRpcs.READ;
        if (in.length < 0 || in.length > buffers.bufferSize() || in.length > in.bulk.length()
                || (needsFile && (in.file < 0 || in.file >= files.size() || in.offset < 0))) {
            req.respondError(Errno.EINVAL);
            return null;
        }
        BulkHandle buf = buffers.take();
        ServerOp op = freeOps.poll();
        if (buf == null || op == null) {
            if (buf != null) {
                buffers.give(buf);
            }
            if (op != null) {
                freeOps.add(op);
            }
            req.respondError(Errno.EAGAIN);
            return null;
        }
        op.request = req;
        op.buffer = buf;
        op.kind = kind;
        op.file = in.file;
        op.offset = in.offset;
        op.length = in.length;
        return op;
    }

    private void startPull(ServerOp op) {
        Incoming<ChunkRequest, ChunkReply> req = op.request;
        int rc = engine.bulkTransfer(BulkOp.PULL, req.origin(), req.input().bulk, 0, op.buffer, 0, op.length, op, null);
        if (rc < 0) {
            transferDone(op, rc);
        }
    }

    private void transferDone(ServerOp op, int status) {
        if (op.kind == FileRpcs.DELAYED_PULL) {
            lastDelayedStatus = status;
        }
        if (status < 0) {
            LOG.log(System.Logger.Level.WARNING, "bulk transfer for request from {0} failed: {1}", op.request.origin(),
                    Errno.name(-status));
            complete(op, status);
            return;
        }
        MemorySegment data = op.buffer.segment().asSlice(0, op.length);
        if (op.kind == FileRpcs.WRITE) {
            try {
                writeFully(files.get(op.file), data.asByteBuffer(), op.offset);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "write: {0}", e.getMessage());
                complete(op, -Errno.EIO);
                return;
            }
        }
        crc.reset();
        crc.update(data.asByteBuffer());
        replyOut.set(op.length, (int) crc.getValue());
        complete(op, 0);
    }

    private void complete(ServerOp op, int status) {
        Incoming<ChunkRequest, ChunkReply> req = op.request;
        buffers.give(op.buffer);
        op.request = null;
        op.buffer = null;
        freeOps.add(op);
        if (status < 0) {
            req.respondError(status);
        } else {
            req.respond(replyOut);
        }
    }

    private static long readFully(FileChannel fc, ByteBuffer bb, long pos) throws IOException {
        long total = 0;
        while (bb.hasRemaining()) {
            int n = fc.read(bb, pos + total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }

    private static void writeFully(FileChannel fc, ByteBuffer bb, long pos) throws IOException {
        long total = 0;
        while (bb.hasRemaining()) {
            total += fc.write(bb, pos + total);
        }
    }

    @Override
    public void close() {
        for (FileChannel fc : files) {
            try {
                fc.close();
            } catch (IOException ignored) {
                // closing at exit
            }
        }
        buffers.close();
        arena.close();
    }

    /** Writes {@code address} as hex to {@code file} atomically, so a client never reads half of it. */
    static void publishAddress(byte[] address, Path file) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, HexFormat.of().formatHex(address) + "\n");
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    public static void main(String[] argv) throws Exception {
        Args a;
        try {
            a = new Args(argv, USAGE);
            a.require("-p", "--provider", USAGE);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        String provider = a.get("-p", "--provider", null);
        Path dir = Path.of(a.get("--dir", null, Files.createTempDirectory("rpc-server").toString())).toAbsolutePath();
        Files.createDirectories(dir);
        EngineOptions opts = EngineOptions.defaults()
                .progressThread(a.has("--progress-thread"))
                .peerTimeoutMillis(a.getLong("--peer-timeout", 5000));
        try (RpcEngine engine = RpcEngine.open(provider, opts);
             RpcServer server = new RpcServer(engine, dir, (int) a.getLong("--buffers", 8),
                     a.getLong("--max-chunk", 1 << 20))) {
            byte[] addr = engine.selfAddress();
            if (a.has("--addr-file")) {
                publishAddress(addr, Path.of(a.get("--addr-file", null, null)));
            }
            System.out.println("ADDR " + HexFormat.of().formatHex(addr));
            System.out.println("PROVIDER " + engine.providerName() + " " + engine.describeAddress(addr) + " dir " + dir);
            System.out.flush();
            while (server.isRunning()) {
                server.turn(50);
            }
            // let the SHUTDOWN response leave before the endpoint closes
            long until = System.nanoTime() + 200_000_000L;
            while (System.nanoTime() < until) {
                engine.progress(10);
            }
            System.out.println("BYE");
        }
    }
}
