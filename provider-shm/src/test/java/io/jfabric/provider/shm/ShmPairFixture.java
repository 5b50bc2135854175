package io.jfabric.provider.shm;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.RmaMsg;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Two shm endpoints of this process that know each other, opened before and closed after each test. */
abstract class ShmPairFixture {
    protected Arena arena;
    protected ShmNode a;
    protected ShmNode b;
    /** b's fi_addr in a's AV, and a's in b's. */
    protected long aToB;
    protected long bToA;

    /** An RMA message from a's {@code iov} to b's ranges ({@code ranges}: address, length pairs) under {@code key}. */
    protected RmaMsg rmaMsg(long key, MemorySegment[] iov, Object context, long... ranges) {
        RmaMsg m = new RmaMsg(Math.max(iov.length, ranges.length / 2));
        System.arraycopy(iov, 0, m.iov, 0, iov.length);
        m.iovCount = iov.length;
        for (int i = 0; i < ranges.length / 2; i++) {
            m.rmaIov[i].set(ranges[2 * i], ranges[2 * i + 1], key);
        }
        m.rmaIovCount = ranges.length / 2;
        m.addr = aToB;
        m.context = context;
        return m;
    }

    @BeforeEach
    void openPair() {
        arena = Arena.ofShared();
        a = new ShmNode();
        b = new ShmNode();
        aToB = a.insert(b);
        bToA = b.insert(a);
    }

    /**
     * Drives both nodes until {@code node}'s CQ gives an entry {@code wanted} accepts, passing over others; an error
     * entry, or 10 s without one, fails the test.
     */
    protected CqEntry awaitEntry(ShmNode node, Predicate<CqEntry> wanted, String what) {
        ShmNode other = node == a ? b : a;
        CqEntry[] one = {new CqEntry()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            other.cq.read(new CqEntry[0], 0);
            int rc = node.cq.read(one, 1);
            if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                node.cq.readError(err, 0);
                throw new AssertionError(what + ": error entry " + err);
            }
            if (rc == 1 && wanted.test(one[0])) {
                return one[0];
            }
        }
        throw new AssertionError(what + ": nothing within 10 s on " + node.ep);
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
