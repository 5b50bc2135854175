package io.jfabric.provider.rxm;

import io.jfabric.CqEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/** Many senders into one receiver: 7 sender processes (8 processes in all), and 4 threads on one FI_THREAD_SAFE endpoint. */
@Timeout(170)
class RxmScaleTest {
    @Test
    void nToOneWithEightProcesses() throws Exception {
        int senders = 7;
        int perSender = 20;
        int size = 20_000; // SAR-sized without dyn_rbuf, so segments of different senders interleave
        try (RxmNode rx = new RxmNode(); Arena arena = Arena.ofShared()) {
            int total = senders * perSender;
            MemorySegment[] bufs = new MemorySegment[total];
            for (int i = 0; i < total; i++) {
                bufs[i] = arena.allocate(size);
                assertEquals(0, rx.ep.trecv(bufs[i], null, -1L, 0, -1L, bufs[i]));
            }
            List<Process> procs = new ArrayList<>();
            List<Path> logs = new ArrayList<>();
            String addr = HexFormat.of().formatHex(rx.name());
            for (int s = 0; s < senders; s++) {
                Path log = Files.createTempFile("rxm-sender-" + s, ".log");
                logs.add(log);
                procs.add(new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                        "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                        RxmSenderMain.class.getName(), addr, String.valueOf(s), String.valueOf(perSender),
                        String.valueOf(size)).redirectErrorStream(true).redirectOutput(log.toFile()).start());
            }
            try {
                assertTrue(RxmNode.await(() -> rx.completions.size() + rx.errors.size() >= total, 150_000, rx),
                        () -> "received " + rx.completions.size() + "/" + total + " " + rx);
                assertTrue(rx.errors.isEmpty(), rx.errors.toString());
                int[] next = new int[senders];
                for (CqEntry c : rx.completions) {
                    MemorySegment b = (MemorySegment) c.context;
                    int id = b.get(ValueLayout.JAVA_INT, 0);
                    int seq = b.get(ValueLayout.JAVA_INT, 4);
                    assertEquals(((long) id << 32) | seq, c.tag);
                    assertEquals(next[id]++, seq, "messages of one sender arrive in order");
                    assertEquals(size, c.len);
                }
                for (int s = 0; s < senders; s++) {
                    assertEquals(perSender, next[s]);
                }
                for (int s = 0; s < senders; s++) {
                    Process p = procs.get(s);
                    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "sender " + s + " did not exit");
                    assertEquals(0, p.exitValue(), Files.readString(logs.get(s)));
                }
            } finally {
                for (Process p : procs) {
                    p.destroyForcibly();
                }
                for (Path l : logs) {
                    Files.deleteIfExists(l);
                }
            }
        }
    }

    @Test
    void fourThreadsShareOneThreadSafeEndpoint() throws Exception {
        int threads = 4;
        int perThread = 200;
        try (RxmNode a = new RxmNode(); RxmNode b = new RxmNode(); Arena arena = Arena.ofShared()) {
            long ab = a.insert(b.name());
            long ba = b.insert(a.name());
            int total = threads * perThread;
            MemorySegment[] bufs = new MemorySegment[total];
            for (int i = 0; i < total; i++) {
                bufs[i] = arena.allocate(16);
                assertEquals(0, b.ep.trecv(bufs[i], null, ba, 0, -1L, bufs[i]));
            }
            AtomicInteger sendErrors = new AtomicInteger();
            AtomicInteger completions = new AtomicInteger();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                ts.add(Thread.ofPlatform().start(() -> {
                    CqEntry[] e = CqEntry.array(8);
                    for (int i = 0; i < perThread; i++) {
                        MemorySegment m = arena.allocate(16);
                        m.set(ValueLayout.JAVA_INT, 0, id);
                        m.set(ValueLayout.JAVA_INT, 4, i);
                        long tag = ((long) id << 32) | i;
                        int rc;
                        long end = System.nanoTime() + 30_000_000_000L;
                        while ((rc = a.ep.tsend(m, null, ab, tag, m)) == -io.jfabric.Errno.EAGAIN
                                && System.nanoTime() < end) {
                            int n = a.cq.read(e, e.length); // several threads read the same CQ
                            if (n > 0) {
                                completions.addAndGet(n);
                            }
                        }
                        if (rc != 0) {
                            sendErrors.incrementAndGet();
                        }
                    }
                }));
            }
            CqEntry[] e = CqEntry.array(16);
            int got = 0;
            long end = System.nanoTime() + 60_000_000_000L;
            List<CqEntry> received = new ArrayList<>();
            while (got < total && System.nanoTime() < end) {
                int n = b.cq.read(e, e.length);
                for (int i = 0; i < n; i++) {
                    CqEntry c = new CqEntry();
                    c.copyFrom(e[i]);
                    received.add(c);
                }
                got += Math.max(n, 0);
                int m = a.cq.read(e, e.length);
                if (m > 0) {
                    completions.addAndGet(m);
                }
            }
            for (Thread t : ts) {
                t.join(30_000);
            }
            while (completions.get() < total && System.nanoTime() < end) {
                int m = a.cq.read(e, e.length);
                if (m > 0) {
                    completions.addAndGet(m);
                }
            }
            assertEquals(0, sendErrors.get());
            assertEquals(total, got, "every message arrived");
            assertEquals(total, completions.get(), "every send completed exactly once");
            int[] next = new int[threads];
            for (CqEntry c : received) {
                MemorySegment m = (MemorySegment) c.context;
                int id = m.get(ValueLayout.JAVA_INT, 0);
                int seq = m.get(ValueLayout.JAVA_INT, 4);
                assertEquals(((long) id << 32) | seq, c.tag, "payload and tag belong together");
                assertEquals(next[id]++, seq, "one thread's messages stay in order");
            }
        }
    }
}
