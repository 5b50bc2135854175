package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The handshake between a connection holding sends and a reader about to sleep: never both at once. */
class SendHoldsTest {
    @Test
    void aSleepingReaderMakesPostersWriteAtOnce() {
        SendHolds h = new SendHolds();
        assertTrue(h.sleeping(), "nothing held: the reader may sleep");
        assertFalse(h.tryHold(), "a reader sleeps: the post must write now");
        h.awake();
        assertTrue(h.tryHold(), "the reader woke: the post may hold");
    }

    @Test
    void aHeldSendKeepsReadersAwakeUntilReleased() {
        SendHolds h = new SendHolds();
        assertTrue(h.tryHold());
        assertFalse(h.sleeping(), "a send is held: the reader must pass again instead of sleeping");
        h.awake();
        assertTrue(h.tryHold(), "a second connection holds too");
        h.released();
        assertFalse(h.sleeping(), "one connection still holds");
        h.awake();
        h.released();
        assertTrue(h.sleeping(), "all released: the reader may sleep");
        h.awake();
    }
}
