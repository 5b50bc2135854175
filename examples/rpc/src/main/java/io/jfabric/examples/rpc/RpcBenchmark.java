package io.jfabric.examples.rpc;

import io.jfabric.FabricException;
import io.jfabric.examples.rpc.Wire.ChunkReply;
import io.jfabric.examples.rpc.Wire.ChunkRequest;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Empty-RPC round trips per second and 1 MiB bulk bandwidth, per provider, against an {@link RpcServer}
 * it starts in a second JVM (same java and class path). Prints one Markdown table row per provider.
 *
 * <pre>
 * java ... RpcBenchmark [--providers shm,tcp;ofi_rxm,libfabric:shm] [--seconds 3] [--window 16]
 * </pre>
 */
public final class RpcBenchmark {
    static final String USAGE = """
            usage: RpcBenchmark [--providers P1,P2,...] [--seconds 3] [--window 16] [--bulk-window 4]""";
    static final long MIB = 1 << 20;

    private final RpcEngine engine;
    private final FileRpcs rpcs;
    private final Target target;
    private long completed;
    private int inFlight;
    private int failed;

    private final ResponseCallback<Void> emptyDone = (id, st, out, arg) -> done(st);
    private final ResponseCallback<ChunkReply> pullDone = (id, st, out, arg) -> done(st);

    private RpcBenchmark(RpcEngine engine, byte[] server) {
        this.engine = engine;
        this.rpcs = new FileRpcs(engine);
        // the first lookup connects; on an emulated machine (rpc.peerTimeoutMs raised) that takes longer than 20 s
        this.target = engine.lookup(server, Math.max(20_000, Long.getLong("rpc.peerTimeoutMs", 0)));
    }

    private void done(int status) {
        inFlight--;
        if (status < 0) {
            failed = status;
        } else {
            completed++;
        }
    }

    /** Sequential empty RPCs: round trips per second. */
    double roundTrips(double seconds) {
        completed = 0;
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long start = System.nanoTime();
        while (System.nanoTime() < end && failed == 0) {
            post(rpcs.empty, null, null, emptyDone);
            while (inFlight > 0) {
                engine.progress(100);
                engine.trigger(16);
            }
        }
        return completed / ((System.nanoTime() - start) / 1e9);
    }

    /** Empty RPCs with {@code window} in flight: RPCs per second. */
    double rpcRate(double seconds, int window) {
        return windowed(seconds, window, rpcs.empty, null, emptyDone);
    }

    /** 1 MiB chunks the server pulls with RMA read, {@code window} in flight: MiB/s. */
    double bulkPull(double seconds, int window, Arena arena) {
        BulkHandle bulk = engine.bulkRegister(arena.allocate(MIB, 4096));
        ChunkRequest in = new ChunkRequest();
        bulk.describe(in.bulk);
        in.length = MIB;
        // every request names the same client buffer: the server only reads it, so sharing is safe
        double rate = windowed(seconds, window, rpcs.pull, in, pullDone);
        bulk.release();
        return rate;
    }

    private <I, O> double windowed(double seconds, int window, Rpc<I, O> rpc, I input, ResponseCallback<O> cb) {
        completed = 0;
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long start = System.nanoTime();
        while (System.nanoTime() < end && failed == 0) {
            while (inFlight < window) {
                post(rpc, input, null, cb);
            }
            engine.progress(100);
            engine.trigger(64);
        }
        while (inFlight > 0) {
            engine.progress(100);
            engine.trigger(64);
        }
        return completed / ((System.nanoTime() - start) / 1e9);
    }

    private <I, O> void post(Rpc<I, O> rpc, I input, BulkHandle attached, ResponseCallback<O> cb) {
        long id = engine.forward(target, rpc, input, attached, 30_000, cb, null);
        if (id < 0) {
            throw new FabricException((int) -id, "forwarding " + rpc.name());
        }
        inFlight++;
    }

    public static void main(String[] argv) throws Exception {
        Args a = new Args(argv, USAGE);
        String[] providers = a.get("--providers", null, "shm,tcp;ofi_rxm,libfabric:shm,libfabric:tcp;ofi_rxm").split(",");
        double seconds = a.getLong("--seconds", 3);
        int window = (int) a.getLong("--window", 16);
        int bulkWindow = (int) a.getLong("--bulk-window", 4);
        System.out.println("| provider | empty RPC round trips/s (1 in flight) | empty RPCs/s (" + window
                + " in flight) | bulk pull 1 MiB, MiB/s (" + bulkWindow + " in flight) |");
        System.out.println("|---|---|---|---|");
        for (String p : providers) {
            try {
                System.out.println(run(p.trim(), seconds, window, bulkWindow));
            } catch (FabricException | IOException e) {
                System.out.println("| " + p + " | failed: " + e.getMessage() + " | | |");
            }
        }
    }

    static String run(String provider, double seconds, int window, int bulkWindow) throws Exception {
        Path dir = Files.createTempDirectory("rpc-bench");
        Path addr = dir.resolve("server.addr");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                RpcServer.class.getName(), "-p", provider, "--addr-file", addr.toString(), "--dir", dir.toString(),
                "--buffers", String.valueOf(Math.max(8, bulkWindow))));
        for (String prop : new String[] {"rpc.postRetryMs", "rpc.peerTimeoutMs"}) { // the server JVM gets them too
            if (System.getProperty(prop) != null) {
                cmd.add(1, "-D" + prop + "=" + System.getProperty(prop));
            }
        }
        Process server = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve("server.log").toFile()).start();
        try {
            // -Drpc.serverStartMs: a cold JVM in the emulated Soft-RoCE VM needs minutes, not seconds
            long until = System.nanoTime() + Long.getLong("rpc.serverStartMs", 30_000) * 1_000_000L;
            while (!Files.exists(addr)) {
                if (!server.isAlive() || System.nanoTime() > until) {
                    throw new IOException("server did not start: " + Files.readString(dir.resolve("server.log")));
                }
                Thread.sleep(50);
            }
            byte[] address = HexFormat.of().parseHex(Files.readString(addr).trim());
            try (RpcEngine engine = RpcEngine.open(provider, EngineOptions.defaults());
                 Arena arena = Arena.ofShared()) {
                RpcBenchmark b = new RpcBenchmark(engine, address);
                b.roundTrips(0.5); // warm-up
                double rt = b.roundTrips(seconds);
                double rate = b.rpcRate(seconds, window);
                b.bulkPull(0.5, bulkWindow, arena);
                double bw = b.bulkPull(seconds, bulkWindow, arena);
                if (b.failed != 0) {
                    throw new FabricException(-b.failed, "an RPC failed during the run");
                }
                Sync.call(engine, b.target, b.rpcs.shutdown, null, 10_000, v -> v);
                return String.format("| %s | %.0f (%.1f µs each) | %.0f | %.0f |", provider, rt, 1e6 / rt, rate, bw);
            }
        } finally {
            if (!server.waitFor(5, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }
}
