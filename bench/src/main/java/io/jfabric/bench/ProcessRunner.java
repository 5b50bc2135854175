package io.jfabric.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts the two sides of a benchmark as real processes on loopback: the server first, then, once its
 * control port is listening (read from /proc/net/tcp, so no probe connection steals the server's one
 * accept), the client. Every wait is bounded; a side that overruns is killed and the run reported failed.
 */
final class ProcessRunner {
    private final long timeoutMs;
    /** Children still running, killed by a shutdown hook so an interrupted compare leaves no process behind. */
    private final java.util.Set<Process> live = java.util.concurrent.ConcurrentHashMap.newKeySet();

    ProcessRunner(long timeoutMs) {
        this.timeoutMs = timeoutMs;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> live.forEach(Process::destroyForcibly)));
    }

    private Process start(ProcessBuilder pb) throws IOException {
        Process p = pb.start();
        live.add(p);
        p.onExit().thenRun(() -> live.remove(p));
        return p;
    }

    /** The outcome of one side. */
    record Result(int exitCode, String stdout, String stderr) {
        boolean ok() {
            return exitCode == 0;
        }
    }

    /** Runs server then client; returns the client's result (the server's stderr is appended when it fails). */
    Result runPair(List<String> server, List<String> client, int port) throws IOException, InterruptedException {
        Path sOut = Files.createTempFile("bench-srv", ".out");
        Path sErr = Files.createTempFile("bench-srv", ".err");
        Process srv = start(new ProcessBuilder(server).redirectOutput(sOut.toFile()).redirectError(sErr.toFile()));
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(timeoutMs, 30_000));
            while (!listening(port)) {
                if (!srv.isAlive()) {
                    return new Result(srv.exitValue(), "", "server exited before listening: " + Files.readString(sErr));
                }
                if (System.nanoTime() > deadline) {
                    return new Result(-1, "", "server never listened on control port " + port);
                }
                Thread.sleep(20);
            }
            Result c = run(client);
            if (!srv.waitFor(Math.max(1000, timeoutMs / 4), TimeUnit.MILLISECONDS)) {
                srv.destroyForcibly();
                return new Result(c.ok() ? -1 : c.exitCode, c.stdout, c.stderr + " (server did not exit)");
            }
            if (c.ok() && srv.exitValue() != 0) {
                return new Result(srv.exitValue(), c.stdout, "server failed: " + Files.readString(sErr));
            }
            return c;
        } finally {
            if (srv.isAlive()) {
                srv.destroyForcibly();
            }
            Files.deleteIfExists(sOut);
            Files.deleteIfExists(sErr);
        }
    }

    /** Runs one process to completion (bounded) and collects its output. */
    Result run(List<String> cmd) throws IOException, InterruptedException {
        Path out = Files.createTempFile("bench", ".out");
        Path err = Files.createTempFile("bench", ".err");
        try {
            Process p = start(new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()));
            if (!p.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
                return new Result(-1, Files.readString(out), "timed out after " + timeoutMs + " ms: " + String.join(" ", cmd));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** True when some socket listens on {@code port} (IPv4 or IPv6), per /proc/net/tcp{,6}. */
    static boolean listening(int port) throws IOException {
        String hex = String.format(":%04X", port);
        for (String f : new String[]{"/proc/net/tcp", "/proc/net/tcp6"}) {
            Path p = Path.of(f);
            if (!Files.exists(p)) {
                continue;
            }
            for (String line : Files.readAllLines(p)) {
                String[] cols = line.trim().split("\\s+");
                if (cols.length > 3 && cols[1].endsWith(hex) && cols[3].equals("0A")) {
                    return true;
                }
            }
        }
        return false;
    }
}
