package io.jfabric.provider.verbs;

import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.util.Sockaddr;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The memory an ofi_rxm endpoint over verbs spends per peer (issue 21 item 3), run in the Soft-RoCE VM by
 * {@code scripts/verbs-in-vm srqmem}: a server JVM (rxe1) with one verbs;ofi_rxm endpoint takes one message from
 * each of N peers, the N endpoints of a client JVM (rxe0), and reports what its process grew by once all N are
 * connected: VmRSS and VmPin (pages that ibv_reg_mr pinned) from /proc/self/status, and the bytes of its memory
 * regions, QPs and SRQs as {@code rdma res} lists them. Run once with FI_OFI_RXM_USE_SRX=0 (bounce buffers posted
 * per connection) and once with 1 (one SRQ per endpoint).
 *
 * <p>usage: {@code SrqMemoryBench server N ADDR_FILE DONE_FILE SERVER_IP} and
 * {@code SrqMemoryBench client N ADDR_FILE DONE_FILE CLIENT_IP}; exit 0 when every message arrived.
 */
public final class SrqMemoryBench {
    private static final long TIMEOUT_MS = 600_000;

    private SrqMemoryBench() {
    }

    public static void main(String[] args) throws Exception {
        int peers = Integer.parseInt(args[1]);
        Path addrFile = Path.of(args[2]);
        Path doneFile = Path.of(args[3]);
        InetAddress ip = InetAddress.getByName(args[4]);
        int rc = args[0].equals("server") ? server(peers, addrFile, doneFile, ip) : client(peers, addrFile, doneFile, ip);
        System.exit(rc);
    }

    private static FabricInfo info(InetAddress ip) {
        FabricInfo hints = Hints.create().provider("verbs;ofi_rxm").epType(EndpointType.RDM)
                .mrMode(MrMode.LOCAL | MrMode.VIRT_ADDR | MrMode.PROV_KEY | MrMode.ALLOCATED).build();
        hints.srcAddr = Sockaddr.of(ip, 0);
        List<FabricInfo> infos = Fabrics.getInfo(hints);
        if (infos.isEmpty()) {
            throw new IllegalStateException("no verbs;ofi_rxm info on " + ip);
        }
        return infos.getFirst();
    }

    /** One rxm endpoint with its CQ and AV. */
    private record Ep(Endpoint ep, CompletionQueue cq, AddressVector av) {
        static Ep open(Domain d, FabricInfo info) {
            CompletionQueue cq = d.openCq(CqAttr.of(CqFormat.TAGGED, 1024));
            AddressVector av = d.openAv(AvAttr.of(AvType.MAP));
            Endpoint ep = d.openEndpoint(info);
            ep.bind(av);
            ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
            ep.enable();
            return new Ep(ep, cq, av);
        }

        void close() {
            ep.close();
            av.close();
            cq.close();
        }
    }

    private static int server(int peers, Path addrFile, Path doneFile, InetAddress ip) throws Exception {
        FabricInfo info = info(ip);
        try (Fabric f = Fabrics.openFabric(info); Domain d = f.openDomain(info); Arena arena = Arena.ofShared()) {
            Ep s = Ep.open(d, info);
            MemorySegment bufs = arena.allocate(64L * peers, 64);
            MemoryRegion mr = (info.domainAttr.mrMode & MrMode.LOCAL) != 0 ? d.registerMemory(bufs, 0, 0, 0, 0) : null;
            for (int i = 0; i < peers; i++) {
                check(s.ep.recv(bufs.asSlice(64L * i, 64), mr, Fabrics.ADDR_UNSPEC, null), "fi_recv");
            }
            long[] before = usage();
            Files.writeString(addrFile, HexFormat.of().formatHex(s.ep.getName()));
            CqEntry[] e = CqEntry.array(16);
            int got = 0;
            long end = System.currentTimeMillis() + TIMEOUT_MS;
            while (got < peers && System.currentTimeMillis() < end) {
                int n = s.cq.read(e, e.length);
                got += Math.max(0, n);
                if (n == -Errno.EAVAIL) {
                    io.jfabric.CqErrEntry err = new io.jfabric.CqErrEntry();
                    s.cq.readError(err, 0);
                    System.out.println("error completion: " + Errno.strerror(err.err));
                    return 1;
                }
            }
            long[] after = usage();
            report(peers, got, before, after);
            Files.writeString(doneFile, "done");
            long drain = System.currentTimeMillis() + 2000;
            while (System.currentTimeMillis() < drain) {
                s.cq.read(e, e.length); // lets the peers' closing reach us
            }
            if (mr != null) {
                mr.close();
            }
            s.close();
            return got == peers ? 0 : 1;
        }
    }

    private static int client(int peers, Path addrFile, Path doneFile, InetAddress ip) throws Exception {
        FabricInfo info = info(ip);
        long end = System.currentTimeMillis() + TIMEOUT_MS;
        while (!Files.exists(addrFile) && System.currentTimeMillis() < end) {
            Thread.sleep(200);
        }
        byte[] server = HexFormat.of().parseHex(Files.readString(addrFile).trim());
        try (Fabric f = Fabrics.openFabric(info); Domain d = f.openDomain(info); Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate(64, 64);
            MemoryRegion mr = (info.domainAttr.mrMode & MrMode.LOCAL) != 0 ? d.registerMemory(buf, 0, 0, 0, 0) : null;
            List<Ep> eps = new ArrayList<>();
            CqEntry[] e = CqEntry.array(16);
            int sent = 0;
            for (int i = 0; i < peers; i++) {
                Ep c = Ep.open(d, info);
                eps.add(c);
                long to = c.av.insert(server);
                int rc;
                while ((rc = c.ep.send(buf, mr, to, null)) == -Errno.EAGAIN && System.currentTimeMillis() < end) {
                    c.cq.read(e, e.length);
                }
                check(rc, "fi_send of peer " + i);
                int n = 0;
                while (n == 0 && System.currentTimeMillis() < end) {
                    n = Math.max(0, c.cq.read(e, e.length));
                }
                sent += n;
            }
            System.out.println("client: " + sent + " of " + peers + " sends completed");
            while (!Files.exists(doneFile) && System.currentTimeMillis() < end) {
                for (Ep c : eps) {
                    c.cq.read(e, e.length);
                }
                Thread.sleep(20);
            }
            for (Ep c : eps) {
                c.close();
            }
            if (mr != null) {
                mr.close();
            }
            return sent == peers ? 0 : 1;
        }
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " failed: " + Errno.strerror(-rc));
        }
    }

    /** VmRSS and VmPin (KiB) of this process, then the bytes of its MRs and the count of its QPs and SRQs. */
    private static long[] usage() throws IOException {
        String status = Files.readString(Path.of("/proc/self/status"));
        long pid = ProcessHandle.current().pid();
        String mrs = rdma("mr", pid);
        long mrBytes = 0;
        Matcher m = Pattern.compile("mrlen (\\d+)").matcher(mrs);
        while (m.find()) {
            mrBytes += Long.parseLong(m.group(1));
        }
        return new long[] {kib(status, "VmRSS"), kib(status, "VmPin"), mrBytes, lines(rdma("qp", pid)),
                lines(rdma("srq", pid))};
    }

    private static long kib(String status, String key) {
        Matcher m = Pattern.compile(key + ":\\s+(\\d+) kB").matcher(status);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private static long lines(String s) {
        return s.isBlank() ? 0 : s.strip().lines().count();
    }

    /** {@code rdma res show KIND pid PID} (iproute2), or "" where the tool is missing. */
    private static String rdma(String kind, long pid) {
        try {
            Process p = new ProcessBuilder("rdma", "res", "show", kind, "pid", Long.toString(pid))
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            return p.waitFor() == 0 ? out : "";
        } catch (IOException | InterruptedException e) {
            return "";
        }
    }

    private static void report(int peers, int got, long[] b, long[] a) {
        String mode = System.getenv().getOrDefault("FI_OFI_RXM_USE_SRX", "0");
        System.out.printf("SRQMEM use_srx=%s peers=%d received=%d rss_kib=%d pin_kib=%d mr_bytes=%d qps=%d srqs=%d%n",
                mode, peers, got, a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3], a[4] - b[4]);
        System.out.printf("SRQMEM per peer: rss %.1f KiB, pinned %.1f KiB, registered %.1f KiB%n",
                (a[0] - b[0]) / (double) peers, (a[1] - b[1]) / (double) peers, (a[2] - b[2]) / 1024.0 / peers);
    }
}
