package io.jfabric.conformance;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
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
 * provider that offers the level; FI_THREAD_COMPLETION: completion contexts driven by a thread each. Four posting threads each send {@link #MESSAGES} numbered messages; one thread
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
        hints.mode = c.info().mode; // the modes and mr_mode the case's info needs, which the suite honours
        hints.domainAttr.mrMode = c.info().domainAttr.mrMode;
        hints.domainAttr.threading = level;
        try {
            return Fabrics.getInfo(hints).stream().anyMatch(i -> c.provider().equals(i.fabricAttr.provName)
                    && i.domainAttr.threading == level);
        } catch (FabricException e) {
            if (e.errno() != Errno.ENODATA) {
                throw e;
            }
            return false; // nothing offers the level
        }
    }

    /** Skips {@code c} unless it offers {@code level}; the options that open a pair at that level. */
    private static EndpointPair.Options at(FabricCase c, Threading level) {
        Gate.require(offers(c, level), c, "does not offer " + level.cName());
        Gate.reliable(c);
        EndpointPair.Options o = new EndpointPair.Options();
        o.alterInfo = i -> i.domainAttr.threading = level;
        return o;
    }

    @ForEachFabric
    void fourPostersAndOneCqReaderLoseAndDuplicateNothing(FabricCase c) throws Exception {
        EndpointPair.Options o = at(c, Threading.SAFE);
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

    /**
     * FI_THREAD_COMPLETION: two completion contexts (each an endpoint pair with its CQs) driven at once by one thread
     * each, as the level allows, every message checked; the level takes no lock, so nothing the two share may
     * be left unguarded.
     */
    @ForEachFabric
    void twoCompletionContextsRunAtOnce(FabricCase c) throws Exception {
        EndpointPair.Options o = at(c, Threading.COMPLETION);
        EndpointPair[] pairs = {EndpointPair.open(c, dump, o), EndpointPair.open(c, dump, o)};
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        long deadline = System.nanoTime() + Slow.ms(T) * 1_000_000L;
        try (Arena arena = Arena.ofShared()) {
            List<Thread> threads = new ArrayList<>();
            for (int k = 0; k < pairs.length; k++) {
                EndpointPair p = pairs[k];
                MemorySegment out = Mem.alloc(arena, 8);
                MemorySegment in = Mem.alloc(arena, 8);
                long seed = (long) k << 32;
                threads.add(Thread.ofPlatform().name("context-" + k).start(() -> {
                    String miss = pingOneWay(p, out, in, seed, deadline);
                    if (miss != null) {
                        failures.add(miss);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join(Slow.ms(T));
            }
        }
        assertEquals(List.of(), List.copyOf(failures), "failures");
    }

    /** {@link #MESSAGES} messages a to b, one at a time, by one thread; null, or what went wrong. */
    private static String pingOneWay(EndpointPair p, MemorySegment out, MemorySegment in, long seed, long deadline) {
        MemoryRegion outMr = p.a.desc(out);
        MemoryRegion inMr = p.b.desc(in);
        CqEntry e = new CqEntry();
        for (int m = 0; m < MESSAGES; m++) {
            in.set(ValueLayout.JAVA_LONG, 0, -1);
            out.set(ValueLayout.JAVA_LONG, 0, seed | m);
            int rc = retry(() -> p.b.ep.recv(in, inMr, p.b.peer, "r"), p, deadline);
            rc = rc != 0 ? rc : retry(() -> p.a.ep.send(out, outMr, p.a.peer, "s"), p, deadline);
            if (rc != 0) {
                return "message " + m + ": post " + Errno.name(rc);
            }
            if (!awaitBoth(p, e, deadline)) {
                return "message " + m + ": no completion (or an error) by the deadline";
            }
            if (in.get(ValueLayout.JAVA_LONG, 0) != (seed | m)) {
                return "message " + m + " arrived as 0x" + Long.toHexString(in.get(ValueLayout.JAVA_LONG, 0));
            }
        }
        return null;
    }

    private static int retry(java.util.function.IntSupplier post, EndpointPair p, long deadline) {
        int rc;
        while ((rc = post.getAsInt()) == -Errno.EAGAIN && System.nanoTime() < deadline) {
            p.a.txCq.read(new CqEntry[0], 0); // this thread's own context makes the progress
            p.b.rxCq.read(new CqEntry[0], 0);
        }
        return rc;
    }

    /** The send's and the receive's completions; both CQs are read in turn (manual progress may need either). */
    private static boolean awaitBoth(EndpointPair p, CqEntry e, long deadline) {
        int tx = -Errno.EAGAIN;
        int rx = -Errno.EAGAIN;
        while ((tx == -Errno.EAGAIN || rx == -Errno.EAGAIN) && System.nanoTime() < deadline) {
            tx = tx == -Errno.EAGAIN ? p.a.txCq.read(e) : tx;
            rx = rx == -Errno.EAGAIN ? p.b.rxCq.read(e) : rx;
        }
        return tx == 1 && rx == 1;
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
