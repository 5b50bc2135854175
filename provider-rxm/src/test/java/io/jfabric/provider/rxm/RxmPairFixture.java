package io.jfabric.provider.rxm;

import io.jfabric.Threading;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.lang.foreign.Arena;

/** Two tcp;ofi_rxm endpoints of this JVM that know each other, opened before and closed after each test. */
abstract class RxmPairFixture {
    protected RxmNode a;
    protected RxmNode b;
    /** b's fi_addr in a's AV, and a's in b's. */
    protected long aToB;
    protected long bToA;
    protected Arena arena;

    /** Runs before the endpoints open: parameters the test's endpoints read when they open. */
    protected void beforeOpen() {
    }

    /** The threading level the endpoints' hints ask; null leaves it unset (FI_THREAD_SAFE). */
    protected Threading threading() {
        return null;
    }

    /** Runs after the endpoints closed. */
    protected void afterClose() {
    }

    @BeforeEach
    void openPair() {
        beforeOpen();
        a = new RxmNode(threading());
        b = new RxmNode(threading());
        aToB = a.insert(b.name());
        bToA = b.insert(a.name());
        arena = Arena.ofShared();
    }

    @AfterEach
    void closePair() {
        try {
            if (b != null) {
                b.close();
            }
            if (a != null) {
                a.close();
            }
            arena.close();
        } finally {
            afterClose();
        }
    }
}
