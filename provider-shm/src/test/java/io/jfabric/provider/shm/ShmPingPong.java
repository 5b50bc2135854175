package io.jfabric.provider.shm;

import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.Fabrics;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A two-process ping-pong over shm, shaped like fabtests' fi_pingpong (busy-polling, one message in
 * flight, usec/xfer = one-way time). Not a unit test: run it by hand beside
 * {@code fi_pingpong -p shm -e rdm -S <size> -I <iterations>} on an otherwise idle machine:
 * <pre>java --enable-native-access=ALL-UNNAMED -cp &lt;test class path&gt; io.jfabric.provider.shm.ShmPingPong 64 20000</pre>
 */
public final class ShmPingPong {

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("echo")) {
            echo(args[1], Integer.parseInt(args[2]), Long.parseLong(args[3]));
            return;
        }
        int size = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        long iterations = args.length > 1 ? Long.parseLong(args[1]) : 20_000;
        try (ShmNode node = new ShmNode(); Arena arena = Arena.ofShared()) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process child = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                    System.getProperty("java.class.path"), ShmPingPong.class.getName(), "echo",
                    new String(node.name(), StandardCharsets.US_ASCII), Integer.toString(size),
                    Long.toString(iterations + iterations / 5))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try {
                String line = new BufferedReader(new InputStreamReader(child.getInputStream())).readLine();
                long peer = node.av.insert(line.substring(5).getBytes(StandardCharsets.US_ASCII));
                MemorySegment tx = arena.allocate(Math.max(size, 1)).asSlice(0, size);
                MemorySegment rx = arena.allocate(Math.max(size, 1)).asSlice(0, size);
                CqEntry[] entries = CqEntry.array(4);
                run(node, peer, tx, rx, entries, iterations / 5); // warm-up
                long t0 = System.nanoTime();
                run(node, peer, tx, rx, entries, iterations);
                long ns = System.nanoTime() - t0;
                double oneWayUs = ns / 1000.0 / (iterations * 2.0);
                System.out.printf("jfabric shm pingpong: bytes %d  iterations %d  time %.2fs  usec/xfer %.2f  MB/s %.2f%n",
                        size, iterations, ns / 1e9, oneWayUs, size / oneWayUs);
                child.waitFor();
            } finally {
                child.destroyForcibly();
            }
        }
    }

    private static void run(ShmNode node, long peer, MemorySegment tx, MemorySegment rx, CqEntry[] entries, long n) {
        for (long i = 0; i < n; i++) {
            check(node.ep.recv(rx, null, peer, null));
            int rc;
            while ((rc = node.ep.send(tx, null, peer, null)) == -Errno.EAGAIN) {
                node.cq.read(entries, 0);
            }
            check(rc);
            int done = 0;
            while (done < 2) {
                rc = node.cq.read(entries, 4);
                if (rc > 0) {
                    done += rc;
                } else if (rc != -Errno.EAGAIN) {
                    throw new IllegalStateException("cq read " + rc);
                }
            }
        }
    }

    private static void echo(String parent, int size, long n) {
        try (ShmNode node = new ShmNode(); Arena arena = Arena.ofShared()) {
            long peer = node.av.insert(parent.getBytes(StandardCharsets.US_ASCII));
            System.out.println("ADDR " + new String(node.name(), StandardCharsets.US_ASCII));
            System.out.flush();
            MemorySegment buf = arena.allocate(Math.max(size, 1)).asSlice(0, size);
            CqEntry[] entries = CqEntry.array(4);
            for (long i = 0; i < n; i++) {
                check(node.ep.recv(buf, null, Fabrics.ADDR_UNSPEC, null));
                int rc;
                do {
                    rc = node.cq.read(entries, 1);
                } while (rc == -Errno.EAGAIN);
                if (rc != 1) {
                    return;
                }
                while ((rc = node.ep.send(buf, null, peer, null)) == -Errno.EAGAIN) {
                    node.cq.read(entries, 0);
                }
                check(rc);
                do {
                    rc = node.cq.read(entries, 1);
                } while (rc == -Errno.EAGAIN);
            }
        }
    }

    private static void check(int rc) {
        if (rc != 0) {
            throw new IllegalStateException("returned " + rc);
        }
    }
}
