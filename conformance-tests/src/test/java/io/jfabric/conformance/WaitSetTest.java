package io.jfabric.conformance;

import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.PollSet;
import io.jfabric.WaitAttr;
import io.jfabric.WaitObj;
import io.jfabric.WaitSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fi_poll(3) on every provider, the libfabric bridge's native queues included: a wait set over a receive CQ, an EQ
 * and a counter wakes on each, fi_trywait says -FI_EAGAIN while events are pending and 0 once they are read, a poll
 * set reports the right contexts, and a wait set with members cannot close (FI_EBUSY).
 */
@Timeout(60)
class WaitSetTest {
    @RegisterExtension
    final StateDump dump = new StateDump();

    private static boolean bridged(FabricCase c) {
        return c.provider().startsWith("libfabric:");
    }

    @ForEachFabric
    void aWaitSetWakesOnACqAnEqAndACounterAndTrywaitTellsPendingEvents(FabricCase c) throws Exception {
        Gate.messaging(c);
        WaitSet[] ws = new WaitSet[1];
        Counter[] rxCntr = new Counter[1];
        EventQueue[] eq = new EventQueue[1];
        EndpointPair.Options o = new EndpointPair.Options();
        o.beforeEndpoint = s -> {
            if (!s.name.equals("b")) {
                return;
            }
            ws[0] = dump.track(s.fabric.openWait(WaitAttr.defaults()));
            CqAttr ca = CqAttr.of(CqFormat.TAGGED, s.rxCq.attr().size);
            ca.waitObj = WaitObj.SET;
            ca.waitSet = ws[0];
            s.rxCq = dump.track(s.domain.openCq(ca));
            CounterAttr na = new CounterAttr();
            na.waitObj = WaitObj.SET;
            na.waitSet = ws[0];
            rxCntr[0] = optionalCounter(s.domain, na); // verbs has no counters
            EqAttr ea = new EqAttr();
            ea.waitObj = WaitObj.SET;
            ea.waitSet = ws[0];
            eq[0] = dump.track(s.fabric.openEq(ea));
        };
        o.beforeEnable = s -> {
            if (s.name.equals("b") && rxCntr[0] != null) {
                s.ep.bind(rxCntr[0], BindFlags.RECV);
            }
        };
        EndpointPair p = EndpointPair.open(c, dump, o);
        WaitSet set = ws[0];
        CompletionQueue rxCq = p.b.rxCq;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment rbuf = Mem.alloc(arena, 64);
            MemorySegment sbuf = Mem.alloc(arena, 64);
            assertEquals(0, drainAndTrywait(p, set), "nothing pending: fi_trywait says blocking is safe");
            assertEquals(-Errno.ETIMEDOUT, set.await(50), "fi_wait with nothing pending times out");

            p.poller.post("fi_recv", () -> p.b.ep.recv(rbuf, p.b.desc(rbuf), Fabrics.ADDR_UNSPEC, "rx"));
            CompletableFuture<Integer> w = CompletableFuture.supplyAsync(() -> waitForEvent(set));
            Thread.sleep(50);
            p.poller.post("fi_send", () -> p.a.ep.send(sbuf, p.a.desc(sbuf), p.a.peer, "tx"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!w.isDone() && System.nanoTime() < deadline) {
                p.a.txCq.read(CqEntry.array(1), 1); // the sender's progress; the receiver's is the wait set's
                Thread.sleep(1);
            }
            assertEquals(0, w.get(1, TimeUnit.SECONDS), "a receive completion (and its counter) woke the wait set");
            assertEquals(-Errno.EAGAIN, p.b.fabric.trywait(set), "fi_trywait with a completion pending");
            assertEquals(-Errno.EAGAIN, p.b.fabric.trywait(rxCq), "fi_trywait on the CQ itself");
            CqEntry[] e = CqEntry.array(1);
            assertEquals(1, rxCq.read(e, 1));
            assertEquals("rx", e[0].context);
            if (rxCntr[0] != null) {
                assertEquals(1, rxCntr[0].read(), "the bound counter counted the receive");
            }
            assertEquals(0, drainAndTrywait(p, set), "everything read: safe to block again");

            w = CompletableFuture.supplyAsync(() -> set.await(20_000));
            Thread.sleep(50);
            EqEntry ev = new EqEntry();
            ev.event = 0;
            ev.context = "written";
            eq[0].write(ev, 0);
            assertEquals(0, w.get(20, TimeUnit.SECONDS), "an EQ event woke the wait set");
            assertEquals(-Errno.EAGAIN, p.b.fabric.trywait(set), "fi_trywait with an EQ event pending");
            assertTrue(eq[0].read(new EqEntry(), 0) >= 0);
            assertEquals(0, drainAndTrywait(p, set));

            if (rxCntr[0] != null) {
                w = CompletableFuture.supplyAsync(() -> set.await(20_000));
                Thread.sleep(50);
                rxCntr[0].add(1);
                assertEquals(0, w.get(20, TimeUnit.SECONDS), "a counter change woke the wait set");
                assertEquals(-Errno.EAGAIN, p.b.fabric.trywait(set), "fi_trywait with a counter change pending");
                assertEquals(2, rxCntr[0].read());
                assertEquals(0, drainAndTrywait(p, set));
            }

            w = CompletableFuture.supplyAsync(() -> set.await(-1));
            Thread.sleep(50);
            set.wakeup();
            assertEquals(0, w.get(20, TimeUnit.SECONDS), "wakeup() from another thread ends a wait");
        }
    }

    @ForEachFabric
    void aPollSetReportsTheQueuesWithEvents(FabricCase c) throws Exception {
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        Counter cntr = optionalCounter(p.b.domain, CounterAttr.defaults());
        PollSet ps = dump.track(p.b.domain.openPoll());
        ps.add(p.b.rxCq, "rx");
        ps.add(p.a.txCq, "tx");
        if (cntr != null) {
            ps.add(cntr, "counter");
        }
        Object[] out = new Object[4];
        assertEquals(0, ps.poll(out, out.length), "nothing pending");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment rbuf = Mem.alloc(arena, 64);
            MemorySegment sbuf = Mem.alloc(arena, 64);
            p.poller.post("fi_recv", () -> p.b.ep.recv(rbuf, p.b.desc(rbuf), Fabrics.ADDR_UNSPEC, "rx"));
            p.poller.post("fi_send", () -> p.a.ep.send(sbuf, p.a.desc(sbuf), p.a.peer, "tx"));
            if (cntr != null) {
                cntr.add(1);
            }
            java.util.Set<Object> expected = cntr != null ? java.util.Set.of("rx", "tx", "counter")
                    : java.util.Set.of("rx", "tx");
            java.util.Set<Object> seen = new java.util.HashSet<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (seen.size() < expected.size() && System.nanoTime() < deadline) {
                int n = ps.poll(out, out.length);
                assertTrue(n >= 0 && n <= 3, "fi_poll returned " + n);
                seen.addAll(Arrays.asList(out).subList(0, n));
            }
            assertEquals(expected, seen, "fi_poll reports each queue with events");
            assertEquals(1, p.b.rxCq.read(CqEntry.array(1), 1));
            assertEquals(1, p.a.txCq.read(CqEntry.array(1), 1));
            int n = ps.poll(out, out.length);
            assertEquals(0, n, "read queues and a reported counter change are not reported again: "
                    + Arrays.asList(out).subList(0, Math.max(0, n)));
        }
        ps.remove(p.b.rxCq);
        ps.remove(p.a.txCq);
        if (cntr != null) {
            ps.remove(cntr);
        }
    }

    private Counter optionalCounter(io.jfabric.Domain domain, CounterAttr attr) {
        try {
            return dump.track(domain.openCounter(attr));
        } catch (FabricException e) {
            if (e.errno() == Errno.ENOSYS || e.errno() == Errno.EOPNOTSUPP) {
                return null;
            }
            throw e;
        }
    }

    /** fi_poll(3): fi_close of a wait set with members fails with FI_EBUSY; once they are closed it succeeds. */
    @ForEachFabric
    void aWaitSetWithMembersCannotClose(FabricCase c) {
        OpenDomain d = OpenDomain.of(c, dump);
        WaitSet ws = dump.track(d.fabric().openWait(WaitAttr.defaults())); // a jfabric wait set, on any fabric
        CqAttr a = CqAttr.of(CqFormat.CONTEXT, 64);
        a.waitObj = WaitObj.SET;
        a.waitSet = ws;
        CompletionQueue cq = dump.track(d.domain().openCq(a));
        try {
            ws.close();
            throw new AssertionError(c + ": a wait set with a member closed");
        } catch (FabricException e) {
            assertEquals(Errno.EBUSY, e.errno(), "closing a wait set with members: " + e.getMessage());
        }
        assertEquals(0, d.fabric().trywait(cq), "fi_trywait on an idle member");
        cq.close();
        ws.close();
    }

    @ForEachFabric
    void waitFdIsTheNativeDescriptorOnTheBridgeAndEnosysElsewhere(FabricCase c) {
        OpenDomain d = OpenDomain.of(c, dump);
        CqAttr ca = CqAttr.of(CqFormat.CONTEXT, 64);
        ca.waitObj = WaitObj.FD;
        CompletionQueue cq;
        try {
            cq = dump.track(d.domain().openCq(ca));
        } catch (FabricException e) {
            // fi_cq(3) lets a provider refuse a wait object it lacks; FI_WAIT_UNSPEC is the portable one
            Assumptions.assumeTrue(e.errno() != Errno.ENOSYS,
                    c + " has no FI_WAIT_FD CQ (fi_cq_open answers FI_ENOSYS): " + e.getMessage());
            throw e;
        }
        EqAttr ea = new EqAttr();
        ea.waitObj = WaitObj.FD;
        EventQueue eq = dump.track(d.fabric().openEq(ea));
        if (c.provider().equals("verbs")) {
            // libfabric's verbs answers FI_GETWAIT with the completion channel's fd; its EQ is jfabric's own
            assertTrue(cq.waitFd() >= 0, "fi_control(FI_GETWAIT) of a verbs FI_WAIT_FD CQ: " + cq.waitFd());
            assertEquals(0, d.fabric().trywait(cq), "fi_trywait on an idle verbs CQ arms it");
            assertEquals(-Errno.ENOSYS, eq.waitFd(), "a Java EQ has no descriptor");
            return;
        }
        if (!bridged(c)) {
            assertEquals(-Errno.ENOSYS, cq.waitFd(), "a Java provider's CQ has no descriptor");
            assertEquals(-Errno.ENOSYS, eq.waitFd(), "a Java provider's EQ has no descriptor");
            return;
        }
        Assumptions.assumeTrue(cq.waitFd() != -Errno.ENOSYS,
                c + " opens a FI_WAIT_FD CQ but answers fi_control(FI_GETWAIT) with FI_ENOSYS: no descriptor to wait on");
        assertTrue(cq.waitFd() >= 0, "fi_control(FI_GETWAIT) of a FI_WAIT_FD CQ: " + cq.waitFd());
        assertTrue(eq.waitFd() >= 0, "fi_control(FI_GETWAIT) of a FI_WAIT_FD EQ: " + eq.waitFd());
        assertEquals(0, d.fabric().trywait(cq, eq), "native fi_trywait with nothing pending");
        EqEntry ev = new EqEntry();
        ev.event = 0;
        ev.context = "written";
        eq.write(ev, 0);
        assertEquals(-Errno.EAGAIN, d.fabric().trywait(eq), "native fi_trywait with an EQ event pending");
        assertTrue(eq.read(new EqEntry(), 0) >= 0);
        assertEquals(0, d.fabric().trywait(eq), "native fi_trywait once the event is read");
    }

    /** Reads everything pending on b's queues, then asks fi_trywait; a few rounds for progress in flight. */
    private static int drainAndTrywait(EndpointPair p, WaitSet set) {
        int rc = -Errno.EAGAIN;
        for (int i = 0; i < 100 && rc == -Errno.EAGAIN; i++) {
            p.b.rxCq.read(CqEntry.array(4), 4);
            rc = p.b.fabric.trywait(set);
        }
        return rc;
    }

    /** fi_wait until a member really has events (a wake-up without one may come first). */
    private static int waitForEvent(WaitSet set) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int rc;
        do {
            rc = set.await(20_000);
        } while (rc == 0 && !set.hasEvents() && System.nanoTime() < deadline);
        return rc;
    }
}
