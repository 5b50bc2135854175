package io.jfabric.util;

import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.WaitAttr;
import io.jfabric.WaitObj;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 21 item 2: a blocked wait and its wake-up allocate nothing once warm, on both sides: the reader blocked in
 * sread (as the leader sleeping in a manual hook, and parked under auto progress) or in a wait set, and the
 * writer that wakes it.
 */
@Timeout(60)
class WaitAllocationTest {
    private static final int WARM = 3_000;
    private static final int MEASURED = 2_000;

    @Test
    void aBlockedSreadAndItsWakeupAllocateNothingUnderManualProgress() throws Exception {
        check(new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 64), new SleepingHook(false), true, false), null);
    }

    @Test
    void aBlockedSreadAndItsWakeupAllocateNothingUnderAutoProgress() throws Exception {
        check(new UtilCompletionQueue(CqAttr.of(CqFormat.CONTEXT, 64), ProgressHook.NONE, true, false), null);
    }

    @Test
    void aBlockedWaitSetAndItsWakeupAllocateNothing() throws Exception {
        UtilWaitSet ws = new UtilWaitSet(WaitAttr.defaults());
        CqAttr a = CqAttr.of(CqFormat.CONTEXT, 64);
        a.waitObj = WaitObj.SET;
        a.waitSet = ws;
        check(new UtilCompletionQueue(a, new SleepingHook(false), true, false), ws);
    }

    /** The writer writes one entry each time the reader has taken the last; both count their own allocations. */
    private static void check(UtilCompletionQueue cq, UtilWaitSet ws) throws Exception {
        AtomicLong writerBytes = new AtomicLong(-1);
        Thread writer = Thread.ofPlatform().start(() -> {
            Runnable cycles = () -> {
                for (int i = 0; i < MEASURED; i++) {
                    while (cq.size() != 0) {
                        Thread.onSpinWait();
                    }
                    LockSupport.parkNanos(20_000); // let the reader block
                    cq.write(cq, 0, 0, 0, 0, 0);
                }
            };
            for (int w = 0; w < WARM / MEASURED + 1; w++) {
                cycles.run();
            }
            writerBytes.set(Allocations.bytesDuring(cycles));
        });
        CqEntry[] e = CqEntry.array(1);
        int rounds = (WARM / MEASURED + 1) * MEASURED;
        for (int i = 0; i < rounds; i++) {
            assertEquals(1, readBlocking(cq, ws, e));
        }
        long readerBytes = Allocations.bytesDuring(() -> {
            for (int i = 0; i < MEASURED; i++) {
                readBlocking(cq, ws, e);
            }
        });
        writer.join(30_000);
        assertTrue(readerBytes < 1024, "the blocked reader allocated " + readerBytes + " bytes in " + MEASURED
                + " wait/wake cycles");
        assertTrue(writerBytes.get() >= 0 && writerBytes.get() < 1024, "the waking writer allocated "
                + writerBytes.get() + " bytes in " + MEASURED + " cycles");
    }

    private static int readBlocking(UtilCompletionQueue cq, UtilWaitSet ws, CqEntry[] e) {
        if (ws == null) {
            return cq.sread(e, 1, 10_000);
        }
        int rc;
        while ((rc = cq.read(e, 1)) != 1) {
            ws.await(10_000);
        }
        return rc;
    }
}
