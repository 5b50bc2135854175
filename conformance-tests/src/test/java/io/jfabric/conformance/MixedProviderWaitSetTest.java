package io.jfabric.conformance;

import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.WaitAttr;
import io.jfabric.WaitObj;
import io.jfabric.WaitSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A wait set that spans providers (issue 21, fi_poll(3)): a Java provider's receive CQ (shm, tcp or tcp;ofi_rxm) and
 * a libfabric bridge's receive CQ (libfabric:tcp or libfabric:tcp;ofi_rxm) in one set. A message to either wakes a
 * waiter within a bound, the other pair's queue staying empty, and an idle wait lasts its timeout rather than
 * returning early. Needs both kinds of case, e.g. {@code FI_PROVIDER='shm,libfabric:tcp'}.
 */
@Timeout(90)
class MixedProviderWaitSetTest {
    private static final List<String> JAVA = List.of("shm", "tcp;ofi_rxm", "tcp");
    private static final List<String> BRIDGED = List.of("libfabric:tcp", "libfabric:tcp;ofi_rxm");
    private static final int IDLE_MILLIS = 500;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @Test
    void aJavaAndABridgedCqInOneSetEachWakeTheWaiterAndAnIdleWaitSleeps() throws Exception {
        FabricCase java = pick(JAVA);
        FabricCase bridged = pick(BRIDGED);
        Assumptions.assumeTrue(java != null && bridged != null, () -> "not run: needs a case of " + JAVA + " and one of "
                + BRIDGED + " (FI_PROVIDER='shm,libfabric:tcp', say); discovery offers " + FabricCases.cases());
        WaitWakesOnArrivalTest.warmUp(java, dump);
        WaitWakesOnArrivalTest.warmUp(bridged, dump);
        WaitSet[] ws = new WaitSet[1];
        EndpointPair pj = EndpointPair.open(java, dump, joining(ws, true));
        EndpointPair pb = EndpointPair.open(bridged, dump, joining(ws, false));
        WaitSet set = ws[0];
        try (Arena arena = Arena.ofShared()) {
            for (int round = 0; round < 2; round++) {
                wakesOn(pj, pb, set, arena, java + " (round " + round + ")");
                wakesOn(pb, pj, set, arena, bridged + " (round " + round + ")");
            }
            assertEquals(0, WaitWakesOnArrivalTest.trywaitAfterDrain(pj, set), "nothing pending before the idle wait");
            long start = System.nanoTime();
            int rc = set.await(IDLE_MILLIS);
            long took = System.nanoTime() - start;
            assertEquals(-Errno.ETIMEDOUT, rc, "an idle wait over both providers times out");
            assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS - 20), "an idle wait of " + IDLE_MILLIS
                    + " ms returned after " + took / 1_000_000 + " ms");
        }
    }

    /** A message on {@code to}'s pair ends a waiter on the set promptly; {@code other}'s receive CQ stays empty. */
    private static void wakesOn(EndpointPair to, EndpointPair other, WaitSet set, Arena arena, String which)
            throws Exception {
        WaitWakesOnArrivalTest.messageEndsAWait(to, set, Mem.alloc(arena, 64), Mem.alloc(arena, 64),
                "a message to " + which);
        assertEquals(-Errno.EAGAIN, other.b.rxCq.read(io.jfabric.CqEntry.array(1), 1),
                "the other provider's receive CQ got nothing");
    }

    /** Side b's receive CQ joins the set; the first pair opens the set (from its fabric: any fabric serves). */
    private EndpointPair.Options joining(WaitSet[] ws, boolean opensTheSet) {
        EndpointPair.Options o = new EndpointPair.Options();
        o.beforeEndpoint = s -> {
            if (!s.name.equals("b")) {
                return;
            }
            if (opensTheSet) {
                ws[0] = dump.track(s.fabric.openWait(WaitAttr.defaults()));
            }
            CqAttr ca = CqAttr.of(CqFormat.TAGGED, s.rxCq.attr().size);
            ca.waitObj = WaitObj.SET;
            ca.waitSet = ws[0];
            s.rxCq = dump.track(s.domain.openCq(ca));
        };
        return o;
    }

    private static FabricCase pick(List<String> providers) {
        for (String name : providers) {
            for (FabricCase c : FabricCases.cases()) {
                if (c.provider().equals(name) && c.hasCaps(io.jfabric.Caps.MSG)
                        && c.epType() != io.jfabric.EndpointType.DGRAM) {
                    return c;
                }
            }
        }
        return null;
    }
}
