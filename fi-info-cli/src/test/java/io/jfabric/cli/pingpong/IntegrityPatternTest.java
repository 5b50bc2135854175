package io.jfabric.cli.pingpong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Timeout(10)
class IntegrityPatternTest {

    @Test
    void messagesStartSevenCharactersFurtherEachTimeAndWrap() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment b = arena.allocate(70);
            IntegrityPattern p = new IntegrityPattern();
            p.fill(b, 70);
            assertEquals("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01234567", text(b, 70));
            p.fill(b, 5);
            assertEquals("789ab", text(b, 5));
            for (int i = 2; i < 9; i++) {
                p.fill(b, 1);
            }
            p.fill(b, 3); // message 9: index 63 mod 62 = 1
            assertEquals("123", text(b, 3));
        }
    }

    @Test
    void checkFollowsTheSameSequenceAndFindsTheBadByte() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment b = arena.allocate(100);
            IntegrityPattern sender = new IntegrityPattern();
            IntegrityPattern receiver = new IntegrityPattern();
            sender.fill(b, 100);
            assertEquals(-1, receiver.check(b, 100));
            sender.fill(b, 100);
            b.set(ValueLayout.JAVA_BYTE, 42, (byte) '#');
            assertEquals(42, receiver.check(b, 100));
        }
    }

    private static String text(MemorySegment b, int n) {
        return new String(b.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
    }
}
