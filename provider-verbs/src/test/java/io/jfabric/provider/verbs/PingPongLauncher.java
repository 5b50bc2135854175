package io.jfabric.provider.verbs;

import io.jfabric.EqAttr;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.PassiveEndpoint;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs several {@code jfabric} command lines (io.jfabric.cli.Main: pingpong, rma-bw, ...) one after the
 * other in one warmed-up JVM, as the server or the client side of each. Inside the emulated VM a cold
 * JVM needs minutes to start and longer than fi_pingpong's 5 s control-channel wait to discover devices
 * and open a fabric, so scripts/verbs-in-vm-guest.sh starts one JVM per side for all its runs.
 *
 * <p>usage: {@code PingPongLauncher server DEVICE -- ARGS [--then ARGS]...} or
 * {@code PingPongLauncher client DEVICE SERVER_IP -- ARGS [--then ARGS]...}. Run k uses control port
 * 47592 + k; the client starts run k once that port is listening (read from /proc/net/tcp, so the probe
 * never becomes the server's control connection). Prints "== run k: ARGS" before each run and exits
 * with 0 only when every run did.
 */
public final class PingPongLauncher {
    static final int FIRST_PORT = 47592;

    private PingPongLauncher() {
    }

    public static void main(String[] args) throws Throwable {
        boolean client = "client".equals(args[0]);
        String device = args[1];
        String serverIp = client ? args[2] : null;
        int at = client ? 3 : 2;
        if (!"--".equals(args[at])) {
            throw new IllegalArgumentException("expected -- after the role, device (and server address)");
        }
        List<List<String>> runs = new ArrayList<>();
        runs.add(new ArrayList<>());
        for (int i = at + 1; i < args.length; i++) {
            if ("--then".equals(args[i])) {
                runs.add(new ArrayList<>());
            } else {
                runs.getLast().add(args[i]);
            }
        }
        warmUp();
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        int failed = 0;
        for (int k = 0; k < runs.size(); k++) {
            List<String> cmd = new ArrayList<>(runs.get(k));
            int port = FIRST_PORT + k;
            if ("pingpong".equals(cmd.getFirst())) {
                cmd.addAll(List.of("-d", device)); // bw and rma-bw take the first info's domain (rxe0)
            }
            if (client) {
                if (!awaitListening(port, 300_000)) {
                    out.println("== run " + k + ": the server never listened on control port " + port);
                    failed++;
                    continue;
                }
                cmd.addAll(List.of("-P", String.valueOf(port), serverIp));
            } else {
                cmd.addAll(List.of("-B", String.valueOf(port)));
            }
            out.println("== run " + k + ": jfabric " + String.join(" ", cmd));
            int rc = (int) Class.forName("io.jfabric.cli.Main")
                    .getMethod("execute", String[].class, PrintWriter.class, PrintWriter.class)
                    .invoke(null, cmd.toArray(String[]::new), out, err);
            out.println("== run " + k + " exit " + rc);
            if (rc != 0) {
                failed++;
            }
        }
        System.exit(failed == 0 ? 0 : 1);
    }

    /** Discovery and the verbs control path, once, before the first timed wait. */
    private static void warmUp() {
        for (FabricInfo i : Fabrics.getInfo(null)) {
            if ("verbs".equals(i.providerName())) {
                Fabric f = Fabrics.openFabric(i);
                EventQueue eq = f.openEq(EqAttr.defaults());
                PassiveEndpoint pep = f.openPassiveEndpoint(i);
                pep.bind(eq);
                pep.listen();
                eq.read(new io.jfabric.EqEntry(), 0);
                pep.close();
                eq.close();
                f.close();
                break;
            }
        }
    }

    /** Whether a socket of this host listens on TCP {@code port} within {@code timeoutMs}. */
    static boolean awaitListening(int port, long timeoutMs) throws IOException, InterruptedException {
        String hexPort = String.format(Locale.ROOT, ":%04X ", port);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() < deadline) {
            for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
                Path p = Path.of(table);
                if (Files.exists(p)) {
                    for (String line : Files.readAllLines(p)) {
                        String[] f = line.trim().split("\\s+");
                        // sl local_address rem_address st ...; st 0A is LISTEN
                        if (f.length > 3 && (f[1] + " ").endsWith(hexPort) && "0A".equals(f[3])) {
                            return true;
                        }
                    }
                }
            }
            Thread.sleep(200);
        }
        return false;
    }
}
