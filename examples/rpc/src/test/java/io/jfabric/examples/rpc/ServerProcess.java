package io.jfabric.examples.rpc;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/** A program of this module in its own JVM (same java and class path as the test), output kept in a log file. */
final class ServerProcess implements AutoCloseable {
    final Process process;
    final Path log;

    private ServerProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    static ServerProcess start(Path dir, String name, Class<?> main, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        return start(dir, name, new ProcessBuilder(cmd));
    }

    /**
     * {@code ./jfabric rpc <args>} from the repository root, on this JVM and this test's class path (the
     * launcher's JFABRIC_RPC_CLASSPATH), so no nested Maven build runs while the tests do.
     */
    static ServerProcess launcher(Path dir, String name, String... args) throws IOException {
        Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent().getParent();
        List<String> cmd = new ArrayList<>(List.of(root.resolve("jfabric").toString(), "rpc"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("JFABRIC_RPC_CLASSPATH", System.getProperty("java.class.path"));
        return start(dir, name, pb);
    }

    private static ServerProcess start(Path dir, String name, ProcessBuilder pb) throws IOException {
        Path log = dir.resolve(name + ".log");
        Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new ServerProcess(p, log);
    }

    /** Starts an RpcServer on {@code provider} and waits for its address file. */
    static ServerProcess server(Path dir, String provider, String... extra) throws Exception {
        Path addr = dir.resolve("server.addr");
        List<String> args = new ArrayList<>(List.of("-p", provider, "--addr-file", addr.toString(),
                "--dir", dir.resolve("store").toString()));
        args.addAll(List.of(extra));
        ServerProcess s = start(dir, "server", RpcServer.class, args.toArray(String[]::new));
        s.awaitAddressFile(addr);
        return s;
    }

    /** Waits up to 30 s for the server to publish its address; kills it and fails when it does not. */
    void awaitAddressFile(Path addr) throws Exception {
        long until = System.nanoTime() + 30_000_000_000L;
        while (!Files.exists(addr)) {
            if (!process.isAlive()) {
                fail("server exited with " + process.exitValue() + " before publishing its address:\n" + output());
            }
            if (System.nanoTime() > until) {
                close();
                fail("server published no address within 30 s:\n" + output());
            }
            Thread.sleep(50);
        }
    }

    byte[] address(Path dir) throws IOException {
        return HexFormat.of().parseHex(Files.readString(dir.resolve("server.addr")).trim());
    }

    int awaitExit(long millis) throws InterruptedException {
        if (!process.waitFor(millis, TimeUnit.MILLISECONDS)) {
            fail("process " + process.pid() + " still running after " + millis + " ms:\n" + output());
        }
        return process.exitValue();
    }

    String output() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "(unreadable log: " + e + ")";
        }
    }

    /** SIGKILL; returns once the process has gone, its native shm regions removed. */
    void kill() throws InterruptedException, IOException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            fail("process " + process.pid() + " still running 10 s after SIGKILL");
        }
        removeNativeShmRegions();
    }

    /**
     * libfabric 1.17's shm unlinks an endpoint's region (/dev/shm/{@code <pid>:<n>:<n>}, 16 MiB) only in fi_close,
     * so a server killed on libfabric:shm would leave its regions until the machine restarts.
     */
    private void removeNativeShmRegions() throws IOException {
        if (!Files.isDirectory(Path.of("/dev/shm"))) {
            return;
        }
        try (DirectoryStream<Path> left = Files.newDirectoryStream(Path.of("/dev/shm"), process.pid() + ":*")) {
            for (Path region : left) {
                Files.deleteIfExists(region);
            }
        }
    }

    @Override
    public void close() throws InterruptedException, IOException {
        if (process.isAlive()) {
            kill();
        }
    }
}
