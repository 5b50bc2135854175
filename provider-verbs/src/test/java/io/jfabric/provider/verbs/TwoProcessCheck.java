package io.jfabric.provider.verbs;

import io.jfabric.Access;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.Mode;
import io.jfabric.MrMode;
import io.jfabric.util.Sockaddr;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Verbs between two JVMs: this process connects to a {@link VerbsPeer} child, exchanges messages of
 * 64 B to 1 MiB that the child echoes (verified byte for byte), then makes the child halt mid-transfer
 * and checks that this side gets FI_SHUTDOWN and an error completion for every receive still posted,
 * and that nothing hangs.
 */
final class TwoProcessCheck {
    private static final int WAIT_MS = 60_000;

    private TwoProcessCheck() {
    }

    static FabricInfo infoFor(String ip) throws Exception {
        FabricInfo hints = FabricInfo.hints();
        hints.epAttr.type = EndpointType.MSG;
        hints.caps = Caps.MSG;
        hints.mode = Mode.RX_CQ_DATA;
        hints.domainAttr.mrMode = MrMode.LOCAL | MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY;
        InetAddress want = InetAddress.getByName(ip);
        for (FabricInfo i : new VerbsProvider().getInfo(Fabrics.API_VERSION, null, null, 0, hints)) {
            if (Sockaddr.toInet(i.srcAddr).getAddress().equals(want)) {
                return i;
            }
        }
        throw new AssertionError("no verbs info for " + ip);
    }

    /** Runs the check; {@code check} records (ok, description). */
    static void run(String clientIp, String serverIp, BiConsumer<Boolean, String> check,
                    java.util.function.Consumer<String> log) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process peer = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), VerbsPeer.class.getName(), serverIp)
                .redirectErrorStream(true).start();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(peer.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    log.accept("peer: " + line);
                    if (line.startsWith("LISTENING ")) {
                        port.complete(Integer.parseInt(line.substring(10).trim()));
                    }
                }
            } catch (Exception e) {
                port.completeExceptionally(e);
            }
            port.complete(-1);
        }, "peer-output");
        reader.setDaemon(true);
        reader.start();
        try {
            int p = port.get(180, TimeUnit.SECONDS);
            check.accept(p > 0, "peer JVM listening on " + serverIp + ":" + p);
            if (p <= 0) {
                return;
            }
            exchange(clientIp, Sockaddr.of(InetAddress.getByName(serverIp), p), peer, check);
        } finally {
            if (!peer.waitFor(30, TimeUnit.SECONDS)) {
                peer.destroyForcibly();
            }
        }
    }

    private static void exchange(String clientIp, byte[] serverAddr, Process peer, BiConsumer<Boolean, String> check)
            throws Exception {
        FabricInfo info = infoFor(clientIp);
        Fabric fabric = new VerbsProvider().openFabric(info);
        EventQueue eq = fabric.openEq(EqAttr.defaults());
        Domain domain = fabric.openDomain(info);
        CompletionQueue cq = domain.openCq(CqAttr.of(CqFormat.DATA, 64));
        Endpoint ep = domain.openEndpoint(info);
        ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
        ep.bind(eq);
        ep.enable();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate(4L * VerbsPeer.SLOT_SIZE, 4096);
            MemoryRegion mr = domain.registerMemory(buf, Access.SEND | Access.RECV, 0);
            MemorySegment out = VerbsPeer.slot(buf, 0);
            MemorySegment in = VerbsPeer.slot(buf, 1);
            ep.connect(serverAddr, null);
            EqEntry ev = new EqEntry();
            EqErrEntry evErr = new EqErrEntry();
            int rc = eq.sread(ev, WAIT_MS, 0);
            check.accept(rc == EqEvent.CONNECTED, "connected to the peer JVM (" + rc + ")");
            if (rc != EqEvent.CONNECTED) {
                return;
            }
            CqEntry[] ce = CqEntry.array(1);
            CqErrEntry err = new CqErrEntry();
            for (int size : new int[] {64, 4096, 65536, 1 << 20}) {
                VerbsPeer.fill(out, size, size);
                in.fill((byte) 0);
                ep.recv(in, mr, 0, "in");
                ep.send(out.asSlice(0, size), mr, 0, "out");
                int gotIn = 0;
                int gotOut = 0;
                for (int i = 0; i < 2; i++) {
                    if (cq.sread(ce, 1, WAIT_MS) == 1) {
                        if ("in".equals(ce[0].context) && ce[0].len == size) {
                            gotIn++;
                        } else if ("out".equals(ce[0].context)) {
                            gotOut++;
                        }
                    }
                }
                check.accept(gotIn == 1 && gotOut == 1 && VerbsPeer.same(in, size, size),
                        "two JVMs: " + size + " B echoed back intact");
            }
            // the peer halts on "DIE!", while a 1 MiB send and three receives are posted here
            MemorySegment die = VerbsPeer.slot(buf, 2);
            die.setString(0, "DIE!", StandardCharsets.US_ASCII);
            for (int i = 0; i < 3; i++) {
                ep.recv(VerbsPeer.slot(buf, 3).asSlice(i * 4096L, 4096), mr, 0, "orphan-" + i);
            }
            ep.send(die.asSlice(0, 4), mr, 0, "die");
            ep.send(out, mr, 0, "mid-transfer");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            boolean shutdown = false;
            int orphansFailed = 0;
            int sendsDone = 0;
            while (System.nanoTime() < deadline && !(shutdown && orphansFailed == 3 && sendsDone == 2)) {
                rc = eq.read(ev, 0);
                if (rc == EqEvent.SHUTDOWN) {
                    shutdown = true;
                } else if (rc == -Errno.EAVAIL) {
                    eq.readError(evErr, 0);
                }
                rc = cq.sread(ce, 1, 200);
                if (rc == 1 && ("die".equals(ce[0].context) || "mid-transfer".equals(ce[0].context))) {
                    sendsDone++;
                } else if (rc == -Errno.EAVAIL) {
                    cq.readError(err, 0);
                    if (String.valueOf(err.context).startsWith("orphan-")) {
                        orphansFailed++;
                    } else if ("die".equals(err.context) || "mid-transfer".equals(err.context)) {
                        sendsDone++;
                    }
                }
            }
            check.accept(peer.waitFor(30, TimeUnit.SECONDS) && peer.exitValue() == 9, "peer JVM halted mid-transfer");
            check.accept(shutdown, "FI_SHUTDOWN after the peer died");
            check.accept(orphansFailed == 3, "all 3 receives posted here completed with errors (" + orphansFailed + ")");
            check.accept(sendsDone == 2, "both sends posted around the crash completed, with or without error ("
                    + sendsDone + ")");
            ep.close();
            mr.close();
        }
        cq.close();
        domain.close();
        eq.close();
        fabric.close();
        check.accept(true, "client side closed cleanly after the peer's crash");
    }
}
