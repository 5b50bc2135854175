package io.jfabric.conformance;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.Threading;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FI_THREAD_SAFE (fi_domain(3)): several threads post on one endpoint while another reads its CQ, on every
 * provider that offers the level. Four posting threads each send {@link #MESSAGES} numbered messages; one thread
 * reads the transmit CQ; the receiver checks that every (thread, number) pair arrives exactly once with its data,
 * and the sender that every send completes exactly once.
 */
@Timeout(300)
class ThreadSafeDataPathTest {
    static final int POSTERS = 4;
    static final int MESSAGES = 500;
    static final long T = 120_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    /** Whether fi_getinfo answers hints asking {@code level} for {@code c}'s provider and endpoint type. */
    static boolean offers(FabricCase c, Threading level) {
        FabricInfo hints = new FabricInfo();
        hints.fabricAttr.provName = c.provider();
        hints.epAttr.type = c.epType();
        hints.domainAttr.threading = level;
        return Fabrics.getInfo(hints).stream().anyMatch(i -> c.provider().equals(i.fabricAttr.provName)
                && i.domainAttr.threading == level);
    }

    @ForEachFabric
    void fourPostersAndOneCqReaderLoseAndDuplicateNothing(FabricCase c) throws Exception {
        Gate.require(offers(c, Threading.SAFE), c, "does not offer FI_THREAD_SAFE");
        Gate.reliable(c);
        EndpointPair.Options o = new EndpointPair.Options();
        o.alterInfo = i -> i.domainAttr.threading = Threading.SAFE;
        EndpointPair p = EndpointPair.open(c, dump, o);
        int total = POSTERS * MESSAGES;
        int depth = (int) Math.min(256, FabricCase.unsigned(p.b.info.rxAttr.size));
        try (Arena arena = Arena.ofShared()) {
            MemorySegment out = Mem.alloc(arena, total * 8L);
            MemoryRegion outMr = p.a.desc(out);
            MemorySegment in = Mem.alloc(arena, depth * 8L);
            MemoryRegion inMr = p.b.desc(in);
            Integer[] sendContexts = new Integer[total];
            Integer[] recvSlots = new Integer[depth];
            for (int i = 0; i < total; i++) {
                sendContexts[i] = i;
                out.setAtIndex(ValueLayout.JAVA_LONG, i, payload(i / MESSAGES, i % MESSAGES));
            }
            for (int s = 0; s < depth; s++) {
                recvSlots[s] = s;
                int slot = s;
                p.poller.post("fi_recv", () -> p.b.ep.recv(in.asSlice(slot * 8L, 8), inMr, p.b.peer, recvSlots[slot]));
            }
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            AtomicBoolean stop = new AtomicBoolean();
            long deadline = System.nanoTime() + Slow.ms(T) * 1_000_000L;
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < POSTERS; t++) {
                int poster = t;
                threads.add(Thread.ofPlatform().name("poster-" + t).start(() -> {
                    for (int m = 0; m < MESSAGES && !stop.get(); m++) {
                        int i = poster * MESSAGES + m;
                        int rc;
                        while ((rc = p.a.ep.send(out.asSlice(i * 8L, 8), outMr, p.a.peer, sendContexts[i]))
                                == -Errno.EAGAIN && System.nanoTime() < deadline && !stop.get()) {
                            Thread.onSpinWait(); // the reader thread makes room
                        }
                        if (rc != 0) {
                            failures.add("poster " + poster + " message " + m + ": fi_send " + Errno.name(rc));
                            return;
                        }
                    }
                }));
            }
            byte[] sendSeen = new byte[total];
            Thread reader = Thread.ofPlatform().name("tx-cq-reader").start(() -> readSends(p, sendSeen, total,
                    deadline, stop, failures));
            byte[] recvSeen = new byte[total];
            int received = 0;
            CqEntry e = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            while (received < total && failures.isEmpty() && System.nanoTime() < deadline) {
                int rc = p.b.rxCq.read(e);
                if (rc == -Errno.EAGAIN) {
                    continue;
                }
                if (rc != 1) {
                    p.b.rxCq.readError(err, 0);
                    failures.add("receive failed: " + Errno.name(rc) + " " + err);
                    break;
                }
                int slot = (Integer) e.context;
                long v = in.getAtIndex(ValueLayout.JAVA_LONG, slot);
                int index = (int) (v >>> 32) * MESSAGES + (int) v;
                if (v >>> 32 >= POSTERS || (int) v < 0 || (int) v >= MESSAGES || payload(index / MESSAGES,
                        index % MESSAGES) != v) {
                    failures.add("received a message that was never sent: 0x" + Long.toHexString(v));
                } else if (recvSeen[index]++ != 0) {
                    failures.add("message " + (index % MESSAGES) + " of poster " + (index / MESSAGES) + " arrived twice");
                }
                received++;
                if (received + depth <= total) {
                    p.poller.post("fi_recv again", () -> p.b.ep.recv(in.asSlice(slot * 8L, 8), inMr, p.b.peer,
                            recvSlots[slot]));
                }
            }
            if (received < total) {
                stop.set(true); // a failure ended the receiver: end the posters' retries too
            }
            for (Thread t : threads) {
                t.join(Slow.ms(T));
            }
            reader.join(Slow.ms(T));
            stop.set(true);
            assertEquals(List.of(), List.copyOf(failures), "failures");
            assertEquals(total, received, "messages received of " + total);
            for (int i = 0; i < total; i++) {
                assertEquals(1, recvSeen[i], "message " + (i % MESSAGES) + " of poster " + (i / MESSAGES) + " received");
                assertEquals(1, sendSeen[i], "send " + (i % MESSAGES) + " of poster " + (i / MESSAGES) + " completed");
            }
        }
    }

    /** The one thread that reads the transmit CQ while the posters post: every send completes once. */
    private static void readSends(EndpointPair p, byte[] seen, int total, long deadline, AtomicBoolean stop,
                                  ConcurrentLinkedQueue<String> failures) {
        CqEntry[] batch = new CqEntry[16];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new CqEntry();
        }
        CqErrEntry err = new CqErrEntry();
        int done = 0;
        while (done < total && !stop.get() && System.nanoTime() < deadline) {
            int n = p.a.txCq.read(batch, batch.length);
            if (n == -Errno.EAVAIL) {
                p.a.txCq.readError(err, 0);
                failures.add("send failed: " + err);
                return;
            }
            for (int k = 0; k < n; k++) {
                int i = (Integer) batch[k].context;
                if (seen[i]++ != 0) {
                    failures.add("send " + i + " completed twice");
                }
            }
            done += Math.max(n, 0);
        }
        if (done < total) {
            failures.add("only " + done + " of " + total + " sends completed");
        }
    }

    private static long payload(int poster, int message) {
        return (long) poster << 32 | message;
    }
}
