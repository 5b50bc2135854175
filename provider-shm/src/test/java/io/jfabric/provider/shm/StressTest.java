package io.jfabric.provider.shm;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Four sender processes into one receiver, tagged messages of mixed sizes (inline, bounce, CMA),
 * every byte verified, each sender keeping {@link ShmPeerMain#BURST_WINDOW} sends in flight. The issue's
 * full run is 4 x 100,000 ({@code -Djfabric.shm.stress.count=100000}); the default, 4 x 3,000 (12,000
 * messages, 650 MB), takes about 20 s on the shared 2-core machine under a load of 12, 40 s under 23.
 */
// long enough for the full 4 x 100,000 run on a loaded machine; a stall fails sooner (20 s without a message)
@Timeout(value = 1800, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StressTest {

    @Test
    void fourSendersMixedSizesEveryByteVerified() throws Exception {
        int senders = 4;
        long count = Long.getLong("jfabric.shm.stress.count", 3000);
        try (ShmNode node = new ShmNode(); Arena arena = Arena.ofShared()) {
            Process[] children = new Process[senders];
            long[] addr = new long[senders];
            try {
                for (int c = 0; c < senders; c++) {
                    children[c] = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                            ShmPeerMain.class.getName(), "burst", new String(node.name(), StandardCharsets.US_ASCII),
                            Long.toString(count), Integer.toString(c))
                            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                }
                for (int c = 0; c < senders; c++) {
                    String line = new BufferedReader(new InputStreamReader(children[c].getInputStream())).readLine();
                    assertTrue(line != null && line.startsWith("ADDR "), "sender " + c + " printed " + line);
                    addr[c] = node.av.insert(line.substring(5).getBytes(StandardCharsets.US_ASCII));
                }
                MemorySegment[] bufs = new MemorySegment[senders];
                long[] next = new long[senders];
                Integer[] ctx = new Integer[senders];
                for (int c = 0; c < senders; c++) {
                    bufs[c] = arena.allocate(300_000);
                    ctx[c] = c;
                    assertEquals(0, node.ep.trecv(bufs[c], null, addr[c], ((long) c << 32), 0, ctx[c]));
                }
                MemorySegment want = arena.allocate(300_000);
                CqEntry e = new CqEntry();
                CqErrEntry err = new CqErrEntry();
                long received = 0;
                long bytes = 0;
                long t0 = System.nanoTime();
                while (received < senders * count) {
                    int rc = node.next(e, err, 20_000);
                    assertEquals(1, rc, () -> "stalled after " + " messages: " + err.err + " " + node.ep);
                    int c = (Integer) e.context;
                    long i = next[c]++;
                    int size = ShmPeerMain.sizeOf(i);
                    assertEquals(((long) c << 32) | i, e.tag, "order from sender " + c);
                    assertEquals(size, e.len);
                    assertEquals(addr[c], e.srcAddr);
                    ShmPeerMain.pattern(want.asSlice(0, size), c * 1_000_000L + i);
                    assertEquals(-1, want.asSlice(0, size).mismatch(bufs[c].asSlice(0, size)),
                            "bytes of message " + i + " from sender " + c);
                    received++;
                    bytes += size;
                    if (next[c] < count) {
                        int post;
                        while ((post = node.ep.trecv(bufs[c], null, addr[c], ((long) c << 32) | next[c], 0, ctx[c]))
                                == -Errno.EAGAIN) {
                            node.cq.read(new CqEntry[0], 0);
                        }
                        assertEquals(0, post);
                    }
                }
                double s = (System.nanoTime() - t0) / 1e9;
                System.out.printf("stress: %d messages, %.1f MB from %d processes in %.2f s%n", received, bytes / 1e6,
                        senders, s);
                for (Process p : children) {
                    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
                    assertEquals(0, p.exitValue());
                }
            } finally {
                for (Process p : children) {
                    if (p != null) {
                        p.destroyForcibly();
                    }
                }
            }
        }
    }
}
