package io.jfabric.provider.rxm;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * tcp;ofi_rxm across processes: jfabric against jfabric in two JVMs, and jfabric against the real C
 * {@code fi_pingpong -p "tcp;ofi_rxm" -e rdm} of libfabric 1.17 in both roles, with {@code -c} (data
 * verified) and sizes that put eager, SAR and rendezvous on the wire. Tagged runs use 1.17's default
 * (dyn_rbuf on: small tagged messages go as tcp tagged messages without rxm's header, larger ones by
 * rendezvous) and, in one run, FI_OFI_RXM_ENABLE_DYN_RBUF=0 on both sides (rxm header, SAR). Both sides must
 * agree on the setting, as between two C peers. Skipped, with the reason, where fi_pingpong is not
 * installed. Loopback only.
 */
@Timeout(150)
class RxmInteropTest {
    private static final String DEFAULT_SIZES = "64 256 1024 4096 65536 1048576";
    private static final int ITERATIONS = 3;

    private static String fiPingpong() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            File f = new File(dir, "fi_pingpong");
            if (f.canExecute()) {
                return f.getAbsolutePath();
            }
        }
        return null;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Process javaPeer(String role, int port, String mode, String sizes, Path log) throws IOException {
        return javaPeer(role, port, mode, sizes, log, true);
    }

    private static Process javaPeer(String role, int port, String mode, String sizes, Path log, boolean dynRbuf)
            throws IOException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                RxmPingpongPeer.class.getName(), role, "127.0.0.1", String.valueOf(port), mode,
                String.valueOf(ITERATIONS), "1"));
        cmd.addAll(List.of(sizes.split(" ")));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("FI_OFI_RXM_ENABLE_DYN_RBUF", dynRbuf ? "1" : "0");
        return pb.start();
    }

    private static Process cPeer(String exe, boolean server, int port, String mode, String size, Path log,
                                 boolean dynRbuf) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(exe, "-p", "tcp;ofi_rxm", "-e", "rdm", "-I",
                String.valueOf(ITERATIONS), "-c"));
        if (mode.equals("tagged")) {
            cmd.addAll(List.of("-m", "tagged"));
        }
        if (size != null) {
            cmd.addAll(List.of("-S", size));
        }
        cmd.addAll(server ? List.of("-B", String.valueOf(port)) : List.of("-P", String.valueOf(port), "127.0.0.1"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        if (dynRbuf) {
            env.remove("FI_OFI_RXM_ENABLE_DYN_RBUF"); // libfabric 1.17's default: on
        } else {
            env.put("FI_OFI_RXM_ENABLE_DYN_RBUF", "0");
        }
        env.remove("FI_PROVIDER");
        return pb.start();
    }

    private static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }

    private static void finish(Process server, Path serverLog, Process client, Path clientLog) throws Exception {
        boolean cDone = client.waitFor(100, TimeUnit.SECONDS);
        boolean sDone = server.waitFor(20, TimeUnit.SECONDS);
        if (!cDone) {
            client.destroyForcibly();
        }
        if (!sDone) {
            server.destroyForcibly();
        }
        String s = read(serverLog);
        String c = read(clientLog);
        assertTrue(cDone && sDone, "a peer did not finish\nserver:\n" + s + "\nclient:\n" + c);
        assertEquals(0, server.exitValue(), "server failed:\n" + s + "\nclient:\n" + c);
        assertEquals(0, client.exitValue(), "client failed:\n" + c + "\nserver:\n" + s);
    }

    private void runC(boolean javaServer, String mode, String cSize, String javaSizes) throws Exception {
        runC(javaServer, mode, cSize, javaSizes, true);
    }

    private void runC(boolean javaServer, String mode, String cSize, String javaSizes, boolean dynRbuf)
            throws Exception {
        String exe = fiPingpong();
        Assumptions.assumeTrue(exe != null, "fi_pingpong (libfabric-bin) is not installed");
        int port = freePort();
        Path jlog = Files.createTempFile("rxm-java-peer", ".log");
        Path clog = Files.createTempFile("rxm-fi_pingpong", ".log");
        try {
            if (javaServer) {
                Process j = javaPeer("server", port, mode, javaSizes, jlog, dynRbuf);
                Thread.sleep(1500);
                Process c = cPeer(exe, false, port, mode, cSize, clog, dynRbuf);
                finish(j, jlog, c, clog);
            } else {
                Process c = cPeer(exe, true, port, mode, cSize, clog, dynRbuf);
                Thread.sleep(1000);
                Process j = javaPeer("client", port, mode, javaSizes, jlog, dynRbuf);
                finish(c, clog, j, jlog);
            }
            String out = read(clog);
            int rows = javaSizes.split(" ").length;
            assertEquals(rows, out.lines().filter(l -> l.contains("=" + ITERATIONS)).count(),
                    "fi_pingpong did not count every message of every size:\n" + out);
            assertTrue(read(jlog).contains("PINGPONG OK"), read(jlog));
        } finally {
            Files.deleteIfExists(jlog);
            Files.deleteIfExists(clog);
        }
    }

    @Test
    void javaServerCClientMsgDefaultSizes() throws Exception {
        runC(true, "msg", null, DEFAULT_SIZES);
    }

    @Test
    void cServerJavaClientTaggedWithoutDynRbuf() throws Exception {
        runC(false, "tagged", null, DEFAULT_SIZES, false);
    }

    /** C 1.17 as shipped: its 64 B and 4 KiB tagged pings reach jfabric as headerless tcp tagged messages. */
    @Test
    void cServerJavaClientTaggedDynRbuf() throws Exception {
        runC(false, "tagged", null, DEFAULT_SIZES); // 64 B-4 KiB headerless eager, 64 KiB and 1 MiB rendezvous
        runC(false, "tagged", "4194304", "4194304");
    }

    @Test
    void javaServerCClientTaggedDynRbuf() throws Exception {
        runC(true, "tagged", null, DEFAULT_SIZES); // 64 B-4 KiB headerless eager, 64 KiB and 1 MiB rendezvous
        runC(true, "tagged", "4194304", "4194304");
    }

    @Test
    void cServerJavaClientMsg4MiBRendezvous() throws Exception {
        runC(false, "msg", "4194304", "4194304");
    }

    @Test
    void javaServerCClientTaggedSarWithoutDynRbuf() throws Exception {
        runC(true, "tagged", "100000", "100000", false);
    }

    @Test
    void twoJvms() throws Exception {
        int port = freePort();
        Path slog = Files.createTempFile("rxm-java-server", ".log");
        Path clog = Files.createTempFile("rxm-java-client", ".log");
        try {
            String sizes = "64 16385 100000 1048576";
            Process s = javaPeer("server", port, "tagged", sizes, slog);
            Thread.sleep(1500);
            Process c = javaPeer("client", port, "tagged", sizes, clog);
            finish(s, slog, c, clog);
            assertTrue(read(clog).contains("size 1048576 x " + ITERATIONS + " ok"), read(clog));
        } finally {
            Files.deleteIfExists(slog);
            Files.deleteIfExists(clog);
        }
    }
}
