package io.jfabric.conformance.xmatrix;

import io.jfabric.conformance.PeerIo;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The two {@link MatrixPeer} processes of one matrix configuration, the Java provider in one and libfabric's
 * native provider (through the bridge) in the other, connected to each other; the test relays their set-up
 * lines and then sends each the steps of every cell.
 */
final class MatrixPair implements AutoCloseable {
    /** One peer process: commands on its stdin, answers from its stdout, stderr in target/xmatrix. */
    static final class Peer implements AutoCloseable {
        final String provider;
        final Process process;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final Path log;
        private final OutputStream stdin;
        long caps;
        long injectSize;

        Peer(String provider, String epType, String role, String dynRbuf) throws IOException {
            this.provider = provider;
            Path dir = Path.of("target", "xmatrix");
            Files.createDirectories(dir);
            log = Files.createTempFile(dir, provider.replaceAll("[^A-Za-z0-9]+", "_") + "-" + role + "-", ".log");
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-XX:ErrorFile=" + dir.toAbsolutePath().resolve("hs_err_pid%p.log"),
                    "-cp", System.getProperty("java.class.path"), MatrixPeer.class.getName(), provider, epType, role));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(log.toFile());
            pb.environment().remove("FI_PROVIDER"); // a filter set for the suite must not hide either side
            pb.environment().put("FI_OFI_RXM_ENABLE_DYN_RBUF", dynRbuf);
            process = pb.start();
            stdin = process.getOutputStream();
            PeerIo.readLines(process, lines, "xmatrix-" + process.pid());
        }

        void send(String line) throws IOException {
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        }

        /** The next line, or "TIMEOUT" / "EOF". */
        String next(long timeoutMs) throws InterruptedException {
            String l = lines.poll(timeoutMs, TimeUnit.MILLISECONDS);
            return l == null ? "TIMEOUT after " + timeoutMs + " ms" : l;
        }

        String expect(String word, long timeoutMs) throws InterruptedException, IOException {
            String l = next(timeoutMs);
            if (!l.startsWith(word + " ") && !l.equals(word)) {
                throw new IOException(provider + " said '" + l + "' where " + word + " was expected (stderr in "
                        + log.toAbsolutePath() + ")");
            }
            return l;
        }

        @Override
        public void close() {
            try {
                send("QUIT");
                if (process.waitFor(5, TimeUnit.SECONDS)) {
                    return;
                }
            } catch (IOException | InterruptedException ignored) {
                // killed below
            }
            process.destroyForcibly();
        }
    }

    final Peer java;
    final Peer c;

    private MatrixPair(Peer java, Peer c) {
        this.java = java;
        this.c = c;
    }

    /** Starts and connects both; {@code javaListens} picks which side listens (MSG) or is named first (RDM). */
    static MatrixPair open(MatrixConfig cfg, boolean javaListens) throws IOException, InterruptedException {
        String type = cfg.rdm() ? "rdm" : "msg";
        String dyn = cfg.dynRbuf() ? "1" : "0";
        Peer j = new Peer(cfg.javaProvider(), type, javaListens ? "listen" : "connect", dyn);
        Peer n = new Peer(cfg.nativeProvider(), type, javaListens ? "connect" : "listen", dyn);
        MatrixPair pair = new MatrixPair(j, n);
        try {
            Peer listener = javaListens ? j : n;
            Peer connector = javaListens ? n : j;
            long t = MatrixPeer.SETUP_MS;
            connector.send("PEER " + listener.expect("ADDR", t).substring(5));
            listener.send("PEER " + connector.expect("ADDR", t).substring(5));
            String[] rj = j.expect("RMA", t).split(" ");
            String[] rn = n.expect("RMA", t).split(" ");
            n.send("RRMA " + rj[1] + " " + rj[2]);
            j.send("RRMA " + rn[1] + " " + rn[2]);
            j.caps = Long.parseLong(rj[3]);
            n.caps = Long.parseLong(rn[3]);
            j.injectSize = Long.parseLong(rj[4]);
            n.injectSize = Long.parseLong(rn[4]);
            j.expect("READY", t);
            n.expect("READY", t);
            return pair;
        } catch (IOException | InterruptedException | RuntimeException e) {
            pair.close();
            throw e;
        }
    }

    /**
     * Runs one cell: the target prepares, the initiator posts, the target verifies, the initiator collects;
     * returns null when it passed, else the first step that failed and why.
     */
    String run(MatrixOp op, long size, long seed, boolean javaInitiates, long timeoutMs)
            throws IOException, InterruptedException {
        Peer initiator = javaInitiates ? java : c;
        Peer target = javaInitiates ? c : java;
        String[][] steps = {{"prep", "t"}, {"init", "i"}, {"verify", "t"}, {"finish", "i"}};
        for (String[] s : steps) {
            Peer p = s[1].equals("t") ? target : initiator;
            p.send("STEP " + s[0] + " " + op.name() + " " + size + " " + seed + " " + timeoutMs);
            String answer = p.next(timeoutMs + 5_000);
            if (!answer.equals("OK")) {
                return s[0] + " on " + (p == java ? "Java" : "C") + ": " + answer.replaceFirst("^FAIL ", "");
            }
        }
        return null;
    }

    @Override
    public void close() {
        java.close();
        c.close();
    }
}
