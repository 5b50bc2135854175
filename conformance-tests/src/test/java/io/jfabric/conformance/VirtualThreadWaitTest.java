package io.jfabric.conformance;

import io.jfabric.Caps;
import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.Threading;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 21: blocking waits park virtual threads instead of pinning their carriers. Ten thousand virtual threads
 * each post their own tagged receive on one endpoint and block in fi_cq_sread on its (FI_THREAD_SAFE) CQ; the
 * peer then sends the ten thousand tags. Every receive completes, the virtual-thread scheduler never adds a
 * carrier thread beyond its parallelism, and JFR records no pin of these threads or of any thread in jfabric's code
 * (the JDK's own NIO sub-poller, itself a virtual thread, is not this case's to judge).
 */
@Timeout(180)
class VirtualThreadWaitTest {
    private static final Set<String> PROVIDERS = Set.of("shm", "tcp", "tcp;ofi_rxm", "verbs", "verbs;ofi_rxm");
    private static final int THREADS = 10_000;
    private static final long DEADLINE_MS = 120_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void tenThousandVirtualThreadsBlockedOnTheirOwnTaggedReceiveAllComplete(FabricCase c) throws Exception {
        Gate.require(PROVIDERS.contains(c.provider()), c, "the virtual-thread case runs on shm, tcp, verbs and their rxm");
        Gate.messaging(c);
        boolean tagged = c.hasCaps(Caps.TAGGED); // tcp's FI_EP_MSG has none: each thread posts its own fi_recv
        EndpointPair.Options o = new EndpointPair.Options();
        o.alterInfo = i -> {
            i.domainAttr.threading = Threading.SAFE; // ten thousand threads post and read at once
            i.rxAttr.size = 2L * THREADS; // every receive posted at once, and a CQ to hold every completion
        };
        EndpointPair p = EndpointPair.open(c, dump, o);
        int parallelism = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                Runtime.getRuntime().availableProcessors());
        AtomicInteger pinned = new AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<String> firstPin = new java.util.concurrent.atomic.AtomicReference<>();
        try (Arena warm = Arena.ofShared()) {
            // one message first: rxm connects on demand, and its connection set-up is not what this case measures
            MemorySegment w = Mem.alloc(warm, 8);
            p.poller.post("warm-up receive", () -> tagged ? p.b.ep.trecv(w, p.b.desc(w), p.b.peer, THREADS, 0, "warm")
                    : p.b.ep.recv(w, p.b.desc(w), p.b.peer, "warm"));
            p.poller.post("warm-up send", () -> tagged ? p.a.ep.tsend(w, p.a.desc(w), p.a.peer, THREADS, "warm")
                    : p.a.ep.send(w, p.a.desc(w), p.a.peer, "warm"));
            p.poller.expectSuccess(p.b.rxCq, new CqEntry(), 10_000, "warm-up receive");
            p.poller.expectSuccess(p.a.txCq, new CqEntry(), 10_000, "warm-up send");
        }
        try (Arena arena = Arena.ofShared(); RecordingStream jfr = new RecordingStream()) {
            jfr.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO);
            jfr.onEvent("jdk.VirtualThreadPinned", e -> {
                if (!inThisCase(e)) {
                    return; // the JDK's own NIO sub-poller is a virtual thread that may pin itself in its poll loop
                }
                pinned.incrementAndGet();
                firstPin.compareAndSet(null, String.valueOf(e.getStackTrace()));
            });
            jfr.startAsync();
            MemorySegment rx = Mem.alloc(arena, 8L * THREADS);
            MemorySegment tx = Mem.alloc(arena, 8L * THREADS);
            AtomicIntegerArray got = new AtomicIntegerArray(THREADS);
            AtomicInteger completed = new AtomicInteger();
            AtomicInteger failures = new AtomicInteger();
            AtomicInteger posted = new AtomicInteger();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
            Thread[] threads = new Thread[THREADS];
            for (int i = 0; i < THREADS; i++) {
                int tag = i;
                threads[i] = Thread.ofVirtual().name("vt-recv-" + i).start(() -> {
                    MemorySegment buf = rx.asSlice(8L * tag, 8);
                    int rc;
                    while ((rc = tagged ? p.b.ep.trecv(buf, p.b.desc(buf), p.b.peer, tag, 0, tag)
                            : p.b.ep.recv(buf, p.b.desc(buf), p.b.peer, tag)) == -Errno.EAGAIN
                            && System.nanoTime() < deadline) {
                        p.b.rxCq.read(new CqEntry[0], 0); // receive queue full for now: progress, then retry
                        Thread.yield();
                    }
                    if (rc != 0) {
                        failures.incrementAndGet();
                        return;
                    }
                    posted.incrementAndGet();
                    CqEntry[] e = CqEntry.array(1);
                    int n = p.b.rxCq.sread(e, 1, (int) DEADLINE_MS);
                    long sent = n == 1 && e[0].context instanceof Integer t
                            ? rx.get(java.lang.foreign.ValueLayout.JAVA_LONG, 8L * t) : -1;
                    if (sent >= 0 && sent < THREADS && (!tagged || (sent == (int) e[0].context && e[0].tag == sent))) {
                        got.incrementAndGet((int) sent);
                        completed.incrementAndGet();
                    } else {
                        failures.incrementAndGet();
                    }
                });
            }
            int peak = carriers();
            CqEntry[] txc = CqEntry.array(64);
            for (int tag = 0; tag < THREADS; tag++) {
                MemorySegment buf = tx.asSlice(8L * tag, 8);
                buf.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, tag);
                int rc;
                while ((rc = tagged ? p.a.ep.tsend(buf, p.a.desc(buf), p.a.peer, tag, null)
                        : p.a.ep.send(buf, p.a.desc(buf), p.a.peer, null)) == -Errno.EAGAIN
                        && System.nanoTime() < deadline) {
                    p.a.txCq.read(txc, txc.length);
                }
                assertEquals(0, rc, "send of tag " + tag + ": " + Errno.name(rc));
                if ((tag & 255) == 0) {
                    p.a.txCq.read(txc, txc.length);
                    peak = Math.max(peak, carriers());
                }
            }
            for (Thread t : threads) {
                while (t.isAlive() && System.nanoTime() < deadline) {
                    p.a.txCq.read(txc, txc.length); // the sender's progress (manual) moves the rest
                    t.join(1);
                }
                peak = Math.max(peak, carriers());
            }
            assertEquals(0, failures.get(), "receives that failed or timed out (" + posted.get() + " posted)");
            assertEquals(THREADS, completed.get(), "every virtual thread's receive completed");
            for (int i = 0; i < THREADS; i++) {
                assertEquals(1, got.get(i), "message " + i + " was received exactly once");
            }
            assertTrue(peak <= parallelism, "the scheduler grew to " + peak + " carrier threads (parallelism "
                    + parallelism + "): a wait blocked its carrier");
            Thread.sleep(200); // let the stream deliver what was recorded
            assertEquals(0, pinned.get(), "jdk.VirtualThreadPinned events; the first at " + firstPin.get());
        }
    }

    /** A pin of one of this case's receiving threads, or one with jfabric code on its stack. */
    private static boolean inThisCase(RecordedEvent e) {
        RecordedThread t = e.getThread();
        if (t != null && t.getJavaName() != null && t.getJavaName().startsWith("vt-recv-")) {
            return true;
        }
        RecordedStackTrace s = e.getStackTrace();
        return s == null || s.getFrames().stream()
                .anyMatch(f -> f.getMethod().getType().getName().startsWith("io.jfabric"));
    }

    /** Live carrier threads of the virtual-thread scheduler. */
    private static int carriers() {
        int n = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getClass().getName().equals("jdk.internal.misc.CarrierThread")) {
                n++;
            }
        }
        return n;
    }
}
