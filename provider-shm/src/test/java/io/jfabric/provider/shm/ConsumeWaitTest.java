package io.jfabric.provider.shm;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.provider.shm.ffi.FutexWaitv;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A small send completes when the peer takes its record, so a sender that goes to sleep before that has nothing
 * in its own ring to wake it. Its sleep arms the peer's ring head beside its doorbell ({@link ConsumeWait}); the
 * peer's consumption clears the announcement and moves that word, which is what wakes the sleeper (the futex side
 * of it: MpscRingTest), and the send completes.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ConsumeWaitTest extends ShmPairFixture {

    @Test
    void aSleepWithASendTheyHaveNotTakenArmsThePeersHeadAndTheirConsumptionMovesIt() {
        assumeTrue(FutexWaitv.supported(), "no futex_waitv: a sleeper with a deferred send looks again every 50 µs");
        ShmEndpoint sender = (ShmEndpoint) a.ep;
        assertEquals(0, a.ep.send(arena.allocateFrom("taken later"), null, aToB, "s"));

        long limit = sender.armForSleep(TimeUnit.SECONDS.toNanos(5));
        long word;
        int expected;
        try {
            assertTrue(limit > 0 && limit <= ConsumeWait.FALLBACK_NANOS,
                    "armed, the sleep is bounded by the fallback only; it may last " + limit + " ns");
            word = sender.consumeWaitAddress();
            expected = sender.consumeWaitExpected();
            assertNotEquals(0, word, "the peer's head word is armed");
            assertEquals(expected, intAt(word));
            assertEquals(1, intAt(word + MpscRing.CONSUME_WAIT_OFFSET - MpscRing.HEAD_OFFSET), "announced");
        } finally {
            sender.sleepDone();
        }
        assertEquals(0, sender.consumeWaitAddress(), "disarmed after the sleep");

        b.progressFor(50); // b takes the record (unexpected: no receive posted)
        assertNotEquals(expected, intAt(word), "the consumer moved the word the sleeper waits on");
        assertEquals(0, intAt(word + MpscRing.CONSUME_WAIT_OFFSET - MpscRing.HEAD_OFFSET),
                "the consumer cleared the announcement as it woke the sleepers");

        CqEntry done = new CqEntry();
        assertEquals(1, a.next(done, new CqErrEntry(), 5_000), "the send completes once taken");
        assertEquals("s", done.context);
        sender.armForSleep(TimeUnit.SECONDS.toNanos(5));
        try {
            assertEquals(0, sender.consumeWaitAddress(), "with no send deferred, nothing is armed");
        } finally {
            sender.sleepDone();
        }
    }

    private static int intAt(long address) {
        return MemorySegment.ofAddress(address).reinterpret(4).get(ValueLayout.JAVA_INT, 0);
    }
}
