package io.jfabric.provider.shm;

import io.jfabric.Caps;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Progress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The domain's wakeup (ProgressHook.wakeup) ends the next sleep when nobody sleeps yet, as Selector.wakeup does:
 * a wait set's waker may come after its waiter last looked at its condition and before the doorbell is armed, and
 * a wake-up that only rang armed doorbells was lost there (an event loop slept through a task: a gRPC call hung).
 * The endpoints are bound to nothing, so nothing else limits their sleep (an EQ's peer watch would, to 50 ms).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShmWakeupTest {
    private static final long LONG_SLEEP = TimeUnit.SECONDS.toNanos(5);
    private static final long SHORT_SLEEP = TimeUnit.MILLISECONDS.toNanos(30);

    @Test
    void aWakeupBeforeTheSleepOfOneEndpointEndsIt() {
        FabricInfo info = info();
        try (Fabric f = Fabrics.openFabric(info); Domain d = f.openDomain(info);
             Endpoint ep = d.openEndpoint(info)) {
            expectWakeupKept((ShmDomain) d);
        }
    }

    @Test
    void aWakeupBeforeTheSleepOnSeveralDoorbellsEndsIt() {
        assumeTrue(DoorbellSet.canSleepOn(2), "no futex_waitv: a domain of several endpoints parks briefly instead");
        FabricInfo info = info();
        try (Fabric f = Fabrics.openFabric(info); Domain d = f.openDomain(info);
             Endpoint ep = d.openEndpoint(info); Endpoint second = d.openEndpoint(info)) {
            expectWakeupKept((ShmDomain) d);
        }
    }

    /**
     * A waker on another thread may hold the domain's endpoint array from before an endpoint closed (Netty's
     * SocketHalfClosedTest closed a channel while another thread's task woke its loop): ringing the closed
     * endpoint's unmapped doorbell must be a no-op, not an "Already closed" failure of the waker.
     */
    @Test
    void aWakeupThatReachesAClosedEndpointDoesNothing() {
        FabricInfo info = info();
        try (Fabric f = Fabrics.openFabric(info); Domain d = f.openDomain(info)) {
            ShmEndpoint ep = (ShmEndpoint) d.openEndpoint(info);
            ep.close();
            ep.wakeup();
        }
    }

    private static FabricInfo info() {
        FabricInfo hints = FabricInfo.hints();
        hints.caps = Caps.MSG;
        hints.epAttr.type = EndpointType.RDM;
        hints.fabricAttr.provName = "shm";
        hints.domainAttr.dataProgress = Progress.MANUAL;
        return Fabrics.getInfo(hints).getFirst();
    }

    private static void expectWakeupKept(ShmDomain d) {
        d.wakeup();
        long start = System.nanoTime();
        d.block(LONG_SLEEP);
        long woken = System.nanoTime() - start;
        assertTrue(woken < LONG_SLEEP / 5, "a wakeup before the sleep should end it at once; it slept "
                + woken / 1_000_000 + " ms of " + LONG_SLEEP / 1_000_000 + "; " + d);
        // spent by that sleep: the next one lasts its time
        start = System.nanoTime();
        d.block(SHORT_SLEEP);
        long slept = System.nanoTime() - start;
        assertTrue(slept >= SHORT_SLEEP * 2 / 3, "one wakeup should end one sleep; the next slept only "
                + slept / 1000 + " µs of " + SHORT_SLEEP / 1000 + "; " + d);
    }
}
