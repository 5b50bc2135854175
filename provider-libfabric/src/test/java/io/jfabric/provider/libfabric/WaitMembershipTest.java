package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Caps;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.EndpointType;
import io.jfabric.EqAttr;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.PollSet;
import io.jfabric.WaitAttr;
import io.jfabric.WaitObj;
import io.jfabric.util.UtilWaitSet;
import io.jfabric.util.Waitable;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bridged queues in a jfabric wait set: each joins and leaves it, sleeps on the native FI_WAIT_FD descriptor where
 * libfabric 1.17 gives one and is polled where it does not (src/test/c/wait_fd.c: tcp's and rxm's CQs and EQs give
 * one, shm's CQs refuse FI_WAIT_FD, rxd's CQs and every counter but sockets' give none), and a counter change is an
 * event of a poll set once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WaitMembershipTest {
    @ParameterizedTest
    @CsvSource({"libfabric:tcp;ofi_rxm, true, true", "libfabric:shm, false, true", "libfabric:udp;ofi_rxd, false, true"})
    void queuesJoinTheSetAndSleepOnTheNativeDescriptorWhereThereIsOne(String prov, boolean cqBlocks, boolean eqBlocks)
            throws Exception {
        Hints h = Hints.create().provider(prov).epType(EndpointType.RDM).caps(Caps.MSG);
        if (prov.contains("tcp")) {
            h.domain("lo");
        }
        FabricInfo info = new LibfabricProvider().getInfo(Fabrics.API_VERSION, null, null, 0, h.build()).get(0);
        try (Fabric f = new LibfabricProvider().openFabric(info); Domain d = f.openDomain(info)) {
            UtilWaitSet set = (UtilWaitSet) f.openWait(WaitAttr.defaults());
            CqAttr ca = CqAttr.of(CqFormat.TAGGED, 64);
            ca.waitObj = WaitObj.SET;
            ca.waitSet = set;
            EqAttr ea = new EqAttr();
            ea.waitObj = WaitObj.SET;
            ea.waitSet = set;
            CounterAttr na = new CounterAttr();
            na.waitObj = WaitObj.SET;
            na.waitSet = set;
            var cq = d.openCq(ca);
            var eq = f.openEq(ea);
            var cntr = d.openCounter(na);
            assertEquals(3, set.size(), "the CQ, the EQ and the counter joined");
            Waitable wc = (Waitable) cq;
            assertEquals(WaitObj.SET, wc.waitObj());
            assertEquals(cqBlocks, wc.progressHook().canBlock(), prov + " CQ sleeps on a native descriptor");
            assertEquals(eqBlocks, ((Waitable) eq).progressHook().canBlock(), prov + " EQ sleeps on a native descriptor");
            assertFalse(((Waitable) cntr).progressHook().canBlock(), "1.17's counters give no descriptor");
            assertEquals(0, f.trywait(set), "nothing pending");
            assertEquals(0, f.trywait(cq), "a member goes to the set's trywait");
            assertEquals(-Errno.ETIMEDOUT, set.await(20), "an idle set times out");

            cntr.add(1);
            assertTrue(set.hasEvents(), "a counter change is an event");
            assertEquals(-Errno.EAGAIN, f.trywait(set));
            assertEquals(0, set.await(1000), "the change ends a wait");
            assertEquals(1, cntr.read());
            assertEquals(0, f.trywait(set), "the read counter has no event");

            try (PollSet ps = d.openPoll()) {
                ps.add(cq, "cq");
                ps.add(cntr, "cntr");
                Object[] out = new Object[2];
                assertEquals(0, ps.poll(out, 2), "nothing to report");
                cntr.add(1);
                assertEquals(1, ps.poll(out, 2));
                assertSame("cntr", out[0]);
                assertEquals(0, ps.poll(out, 2), "a counter change is reported once");
                ps.remove(cq);
                ps.remove(cntr);
            }

            cntr.close();
            eq.close();
            if (cqBlocks) {
                set.hasEvents(); // leaves the counter's last change read, so the set sleeps on the CQ alone below
                virtualThreadParksWhileTheSetSleepsOnTheDescriptor(set);
            }
            cq.close();
            assertEquals(0, set.size(), "closed queues left the set");
            set.close();
        }
    }

    /**
     * poll(2) on the native descriptor would block a virtual thread's carrier: the wait hands it to a platform
     * thread and the virtual thread parks (WAITING, not RUNNABLE in native code) until wakeup ends the sleep.
     */
    private static void virtualThreadParksWhileTheSetSleepsOnTheDescriptor(UtilWaitSet set) throws Exception {
        int[] rc = {1};
        Thread waiter = Thread.ofVirtual().start(() -> rc[0] = set.await(10_000));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Thread.State state = waiter.getState();
        while (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
            Thread.sleep(10);
            state = waiter.getState();
        }
        Thread.sleep(200);
        state = waiter.getState();
        assertTrue(state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING,
                "a virtual thread waiting on the native descriptor is " + state + ", not parked");
        assertTrue(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("jfabric-wait-sleeper")),
                "a platform thread sleeps in poll(2) for it");
        set.wakeup();
        waiter.join(5_000);
        assertFalse(waiter.isAlive(), "wakeup ended the wait");
        assertEquals(0, rc[0]);
    }
}
