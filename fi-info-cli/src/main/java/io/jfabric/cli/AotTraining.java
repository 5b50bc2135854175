package io.jfabric.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * The training run of the CLI's AOT cache (JEP 483/514/515): the launcher runs this once after a build with
 * {@code -XX:AOTCacheOutput}, on the same class path as the CLI, so that the cache holds the classes, linked call
 * sites and method profiles of what the CLI does most: pingpong and bw on shm, tcp and tcp;ofi_rxm over loopback.
 * Both sides of each run are in this one JVM (the server on a thread, the client on the main thread), which is
 * why the cache sees the server's and the client's paths. A workload that fails (a provider that cannot run here)
 * is reported and skipped: a cache made from fewer workloads is still a valid cache.
 */
public final class AotTraining {
    private static final long STEP_TIMEOUT_MS = 60_000;

    private AotTraining() {
    }

    public static void main(String[] args) throws Exception {
        String[][] transports = {{"shm", "rdm"}, {"tcp", "msg"}, {"tcp;ofi_rxm", "rdm"}};
        int failed = 0;
        for (String[] t : transports) {
            failed += run("pingpong", t[0], t[1], "-S", "64", "-I", "500") ? 0 : 1;
            failed += run("pingpong", t[0], t[1], "-S", "1048576", "-I", "20") ? 0 : 1;
            failed += run("bw", t[0], t[1], "--rate", "-S", "64", "-I", "20", "-w", "2", "--no-progress") ? 0 : 1;
        }
        System.err.println("jfabric AOT training: " + (3 * transports.length - failed) + " of " + 3 * transports.length
                + " workloads ran");
    }

    /** One server and client pair of {@code tool} on {@code prov}; false when either side failed. */
    private static boolean run(String tool, String prov, String ep, String... opts) throws Exception {
        int port = freePort();
        List<String> common = new ArrayList<>(List.of(tool, "-p", prov, "-e", ep));
        common.addAll(List.of(opts));
        List<String> server = new ArrayList<>(common);
        server.addAll(List.of("-B", Integer.toString(port)));
        List<String> client = new ArrayList<>(common);
        client.addAll(List.of("-P", Integer.toString(port), "127.0.0.1"));
        int[] serverRc = {-1};
        Thread srv = Thread.ofPlatform().name("aot-training-server").daemon().start(
                () -> serverRc[0] = quietly(server));
        long deadline = System.currentTimeMillis() + STEP_TIMEOUT_MS;
        int rc = -1;
        // the server may not listen yet: a refused client leaves its accept for the next try
        while (srv.isAlive() && System.currentTimeMillis() < deadline && (rc = quietly(client)) != 0) {
            Thread.sleep(100);
        }
        srv.join(Math.max(1, deadline - System.currentTimeMillis()));
        boolean ok = rc == 0 && serverRc[0] == 0;
        System.err.printf("jfabric AOT training: %s %s on %s, %s, %d ms%n", tool, String.join(" ", opts), prov,
                ok ? "ok" : "failed", STEP_TIMEOUT_MS - (deadline - System.currentTimeMillis()));
        if (!ok) {
            System.err.println("jfabric AOT training: " + tool + " on " + prov + " did not run (client " + rc + ", server "
                    + serverRc[0] + "); left out of the cache");
        }
        return ok;
    }

    private static int quietly(List<String> args) {
        PrintWriter none = new PrintWriter(OutputStream.nullOutputStream());
        return Main.execute(args.toArray(String[]::new), none, none);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
