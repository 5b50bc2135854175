package io.jfabric.conformance;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * A {@link PeerMain} in a second JVM: the same java and class path as this one, commands on its stdin,
 * protocol lines from its stdout, stderr kept in target/peer-logs for the state dump. Registered with
 * the test's {@link StateDump}, which kills it after the test.
 */
public final class PeerProcess implements AutoCloseable {
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final OutputStream stdin;
    private final Path log;

    private PeerProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
        this.stdin = process.getOutputStream();
        PeerIo.readLines(process, lines, "peer-stdout-" + process.pid());
    }

    public static PeerProcess start(FabricCase c, String role, StateDump dump) throws IOException {
        return start(c, role, dump, PeerMain.class, List.of(), List.of());
    }

    /**
     * A peer running {@code mainClass} with arguments (case id, role, {@code extraArgs}...), its command line
     * prefixed by {@code launcher} (e.g. {@code ip netns exec <ns>}) when that is not empty.
     */
    public static PeerProcess start(FabricCase c, String role, StateDump dump, Class<?> mainClass,
                                    List<String> extraArgs, List<String> launcher) throws IOException {
        Path dir = Path.of("target", "peer-logs");
        Files.createDirectories(dir);
        Path log = Files.createTempFile(dir, c.id().replaceAll("[^A-Za-z0-9]+", "_") + "-" + role + "-", ".log");
        List<String> cmd = new ArrayList<>(launcher);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        // a native crash's report goes next to the peer's stderr, not into the source tree
        cmd.add("-XX:ErrorFile=" + dir.toAbsolutePath().resolve("hs_err_pid%p.log"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        String jvmOptions = System.getProperty("jfabric.conformance.peerJvmOptions", "").trim();
        if (!jvmOptions.isEmpty()) { // e.g. -XX:TieredStopAtLevel=1 in the VM, where the JIT's own work dominates
            cmd.addAll(List.of(jvmOptions.split("\\s+")));
        }
        for (String prop : new String[] {"jfabric.provider", Slow.PROPERTY, "jfabric.conformance.peerJvmOptions"}) {
            if (System.getProperty(prop) != null) {
                cmd.add("-D" + prop + "=" + System.getProperty(prop));
            }
        }
        cmd.add(mainClass.getName());
        cmd.add(c.id());
        cmd.add(role);
        cmd.addAll(extraArgs);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(log.toFile());
        pb.environment().put("LIBC_FATAL_STDERR_", "1"); // glibc's abort messages go to stderr, not the tty
        Process p = pb.start();
        dump.process(p, log);
        dump.note("peer " + role + " pid " + p.pid() + ", stderr in " + log.toAbsolutePath());
        return new PeerProcess(p, log);
    }

    /** Waits for the next line, which must start with {@code prefix}; returns the rest. */
    public String expect(String prefix, long timeoutMs) throws InterruptedException {
        String l = lines.poll(Slow.ms(timeoutMs), TimeUnit.MILLISECONDS);
        if (l == null) {
            fail("peer " + process.pid() + " said nothing within " + timeoutMs + " ms (expected " + prefix + ")");
        }
        if (!l.startsWith(prefix)) {
            fail("peer " + process.pid() + " said '" + l + "' where '" + prefix + "' was expected");
        }
        return l.substring(prefix.length()).trim();
    }

    public byte[] expectAddress(long timeoutMs) throws InterruptedException {
        return HexFormat.of().parseHex(expect("ADDR", timeoutMs));
    }

    public void send(String line) throws IOException {
        stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
    }

    /** Waits for the process to exit; returns its status, or fails after {@code timeoutMs}. */
    public int awaitExit(long timeoutMs) throws InterruptedException {
        if (!process.waitFor(Slow.ms(timeoutMs), TimeUnit.MILLISECONDS)) {
            fail("peer " + process.pid() + " still running " + timeoutMs + " ms after it was told to finish");
        }
        return process.exitValue();
    }

    /** SIGKILL, as a crash would. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGSTOP: the process freezes with its sockets and shared memory open, as a hung or swapped-out peer would. */
    public void freeze() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT after {@link #freeze}. */
    public void thaw() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        int rc = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start().waitFor();
        if (rc != 0) {
            fail("kill -" + name + " " + process.pid() + " exited with " + rc);
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
