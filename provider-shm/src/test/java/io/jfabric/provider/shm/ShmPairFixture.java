package io.jfabric.provider.shm;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.lang.foreign.Arena;

/** Two shm endpoints of this process that know each other, opened before and closed after each test. */
abstract class ShmPairFixture {
    protected Arena arena;
    protected ShmNode a;
    protected ShmNode b;
    /** b's fi_addr in a's AV, and a's in b's. */
    protected long aToB;
    protected long bToA;

    @BeforeEach
    void openPair() {
        arena = Arena.ofShared();
        a = new ShmNode();
        b = new ShmNode();
        aToB = a.insert(b);
        bToA = b.insert(a);
    }

    @AfterEach
    void closePair() {
        try {
            a.close();
            b.close();
        } finally {
            arena.close();
        }
    }
}
