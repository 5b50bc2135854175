package io.jfabric.conformance;

import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.WaitAttr;
import io.jfabric.WaitObj;
import io.jfabric.WaitSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fi_wait(3) sleeps on the provider's event source and a message ends it: a thread blocked in
 * {@code set.await(5000)} on a wait set holding the receiver's CQ returns well before its timeout when the other
 * endpoint (driven by its own thread, never by the waiter) sends, the first message to a peer not yet connected
 * (rxm's on-demand connection set-up) as well as the next; and an idle waiter sleeps instead of polling. Not a
 * timing benchmark: the bounds catch a set that only wakes at its timeout, or that polls its members.
 */
@Timeout(60)
class WaitWakesOnArrivalTest {
    /** Far under the 5 s wait, far over any scheduling delay of a loaded machine. */
    private static final long WOKEN_WITHIN_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int AWAIT_MILLIS = 5_000;
    private static final int IDLE_MILLIS = 500;
    /** Sleeps an idle waiter may take in {@link #IDLE_MILLIS}: one per 2 ms (a poller takes one per 200 us). */
    private static final long IDLE_SLEEPS = 250;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void aMessageFromTheOtherEndpointEndsAWaitOnTheSetPromptly(FabricCase c) throws Exception {
        wakesOnArrival(c, false);
    }

    /** As above with a second endpoint in the receiver's domain (an event loop's channels): shm then sleeps on both doorbells. */
    @ForEachFabric
    void theSetWakesPromptlyWhenTheReceiversDomainHasSeveralEndpoints(FabricCase c) throws Exception {
        Gate.require(!c.isMsg(), c, "a MSG endpoint opens from its own connection request; the RDM cases cover this");
        wakesOnArrival(c, true);
    }

    private void wakesOnArrival(FabricCase c, boolean spareEndpoint) throws Exception {
        Gate.messaging(c);
        Gate.require(!c.provider().startsWith("verbs"), c, "verbs and rxm over verbs have two event sources (a CQ's"
                + " completion channel, rdma_cm's event channel): a wait set over both polls between 200 us parks, as"
                + " docs/differences.md says, instead of sleeping on one source");
        warmUp(c, dump);
        WaitSet[] ws = new WaitSet[1];
        EndpointPair.Options o = new EndpointPair.Options();
        o.beforeEndpoint = s -> {
            if (s.name.equals("b")) {
                ws[0] = dump.track(s.fabric.openWait(WaitAttr.defaults()));
                CqAttr ca = CqAttr.of(CqFormat.TAGGED, s.rxCq.attr().size);
                ca.waitObj = WaitObj.SET;
                ca.waitSet = ws[0];
                s.rxCq = dump.track(s.domain.openCq(ca));
                if (spareEndpoint) {
                    dump.track(s.domain.openEndpoint(s.info));
                }
            }
        };
        EndpointPair p = EndpointPair.open(c, dump, o);
        WaitSet set = ws[0];
        try (Arena arena = Arena.ofShared()) {
            MemorySegment rbuf = Mem.alloc(arena, 64);
            MemorySegment sbuf = Mem.alloc(arena, 64);
            for (int i = 0; i < 2; i++) {
                String which = i == 0 ? "the first message (a peer not yet connected on RDM)" : "the next message";
                messageEndsAWait(p, set, rbuf, sbuf, which);
            }
            // a bridged CQ without a native descriptor is polled between parks (docs/differences.md)
            Assumptions.assumeTrue(!c.provider().startsWith("libfabric:") || p.b.rxCq.waitFd() >= 0, () -> "not run: "
                    + c.id() + "'s native CQ gives no FI_WAIT_FD descriptor (fi_control(FI_GETWAIT): "
                    + p.b.rxCq.waitFd() + "), so an idle wait set polls it between 200 us parks instead of sleeping");
            assertIdleWaiterSleeps(p, set);
        }
    }

    /**
     * A waiter on its own thread sleeps in {@code set.await} until side a of {@code p}, driven by its own thread,
     * sends to b: the wait must end well within {@link #WOKEN_WITHIN_NANOS} of the send, and b then reads the
     * receive completion.
     */
    static void messageEndsAWait(EndpointPair p, WaitSet set, MemorySegment rbuf, MemorySegment sbuf, String which)
            throws Exception {
        assertEquals(0, p.b.ep.recv(rbuf, p.b.desc(rbuf), Fabrics.ADDR_UNSPEC, "rx"), "fi_recv");
        assertEquals(0, trywaitAfterDrain(p, set), "nothing pending before " + which);
        long[] returnedAt = new long[1];
        CompletableFuture<Integer> waiter = onItsOwnThread(() -> {
            int rc = set.await(AWAIT_MILLIS);
            returnedAt[0] = System.nanoTime();
            return rc;
        });
        Thread.sleep(100); // the waiter is asleep in the set by now
        assertTrue(!waiter.isDone(), "fi_wait returned before " + which + " was sent: " + waiter.getNow(null));
        long sentAt = System.nanoTime();
        CompletableFuture<Integer> sender = onItsOwnThread(() -> sendAndComplete(p, sbuf));
        int rc = waiter.get(AWAIT_MILLIS + 5_000, TimeUnit.MILLISECONDS);
        long took = returnedAt[0] - sentAt;
        assertEquals(0, rc, "fi_wait ended by " + which);
        assertTrue(took < WOKEN_WITHIN_NANOS, "fi_wait returned " + took / 1_000_000 + " ms after "
                + which + " was sent: the set did not wake on its arrival");
        sender.get(20, TimeUnit.SECONDS);
        assertEquals(1, readOne(p.b.rxCq), "the receive completion that woke the set (" + which + ")");
    }

    /**
     * One message over a pair of its own, so that the measured first message does not also pay for loading and
     * compiling the connection set-up code (over a second on a loaded machine).
     */
    static void warmUp(FabricCase c, StateDump dump) {
        EndpointPair w = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buf = Mem.alloc(arena, 64);
            w.poller.post("fi_recv", () -> w.b.ep.recv(buf, w.b.desc(buf), Fabrics.ADDR_UNSPEC, "warm rx"));
            w.poller.post("fi_send", () -> w.a.ep.send(buf, w.a.desc(buf), w.a.peer, "warm tx"));
            w.poller.expectSuccess(w.b.rxCq, new CqEntry(), 20_000, "the warm-up message");
            w.poller.expectSuccess(w.a.txCq, new CqEntry(), 20_000, "the warm-up send");
        }
    }

    /**
     * An idle waiter sleeps on the event source: during {@link #IDLE_MILLIS} of fi_wait its thread goes to sleep
     * (voluntary context switches, /proc/thread-self/status) a few dozen times at most (tcp's selector sleeps
     * 10 ms at a time), not every few hundred microseconds as a waiter polling its members between parks does.
     * Counted, not timed: load adds involuntary switches only.
     */
    private static void assertIdleWaiterSleeps(EndpointPair p, WaitSet set) throws Exception {
        Assumptions.assumeTrue(voluntarySwitches() >= 0,
                "no /proc/thread-self/status here to count the waiter's sleeps (Linux only)");
        assertEquals(0, trywaitAfterDrain(p, set), "nothing pending before the idle wait");
        CompletableFuture<long[]> sleeps = onItsOwnThread(() -> {
            long before = voluntarySwitches();
            int rc = set.await(IDLE_MILLIS);
            return new long[] {rc, voluntarySwitches() - before};
        });
        long[] r = sleeps.get(IDLE_MILLIS + 10_000L, TimeUnit.MILLISECONDS);
        assertEquals(-Errno.ETIMEDOUT, r[0], "an idle fi_wait times out");
        assertTrue(r[1] < IDLE_SLEEPS, "an idle fi_wait of " + IDLE_MILLIS + " ms went to sleep " + r[1]
                + " times: it polls its members between short parks instead of sleeping on their event source");
    }

    /** The calling thread's voluntary context switches so far, or -1 where Linux's /proc does not say. */
    static long voluntarySwitches() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** A platform thread per task: the common pool may have a single thread on a small machine. */
    static <T> CompletableFuture<T> onItsOwnThread(Supplier<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("wait-wakes-test").start(() -> {
            try {
                f.complete(task.get());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /** The other endpoint's own thread posts a send and drives its progress until the send completes. */
    static int sendAndComplete(EndpointPair p, MemorySegment sbuf) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int rc;
        while ((rc = p.a.ep.send(sbuf, p.a.desc(sbuf), p.a.peer, "tx")) == -Errno.EAGAIN
                && System.nanoTime() < deadline) {
            p.a.txCq.read(CqEntry.array(1), 1);
        }
        assertEquals(0, rc, "fi_send");
        CqEntry[] e = CqEntry.array(1);
        while (p.a.txCq.read(e, 1) != 1 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return rc;
    }

    static int readOne(CompletionQueue cq) {
        CqEntry[] e = CqEntry.array(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int n;
        while ((n = cq.read(e, 1)) == -Errno.EAGAIN && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return n;
    }

    /** fi_trywait after reading what is pending: a few rounds for progress still in flight. */
    static int trywaitAfterDrain(EndpointPair p, WaitSet set) {
        int rc = -Errno.EAGAIN;
        for (int i = 0; i < 100 && rc == -Errno.EAGAIN; i++) {
            rc = p.b.fabric.trywait(set);
        }
        return rc;
    }
}
