package io.jfabric.conformance;

import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.RmaMsg;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A write the target must refuse (bad key, range or access), sent so the initiator learns the verdict: the
 * caller then checks the target's memory is untouched.
 */
final class RefusedWrite {
    private RefusedWrite() {
    }

    /**
     * Posts a delivery-complete fi_writemsg of {@code len} bytes to {@code remoteAddr}/{@code key} and expects
     * an error completion (or a refusal at post time), then lets the target's progress run a while so that a
     * wrongly applied write would show.
     */
    static void check(FabricCase c, EndpointPair p, Arena arena, long remoteAddr, long len, long key, String what) {
        MemorySegment src = Mem.alloc(arena, len);
        Mem.fill(src, 202);
        // Only a delivery-complete write learns the target's verdict (fi_cq(3) completion levels); a
        // transmit-complete write may legally succeed before the target looks at the key.
        RmaMsg m = new RmaMsg(1);
        m.set(src, p.a.desc(src), p.a.peer, "bad-write");
        m.rmaIov[0].set(remoteAddr, len, key);
        m.rmaIovCount = 1;
        int rc = p.poller.tryPost(() -> p.a.ep.writemsg(m, OpFlags.DELIVERY_COMPLETE | OpFlags.COMPLETION));
        Gate.require(rc != -Errno.EBADFLAGS && rc != -Errno.ENOSYS && rc != -Errno.EOPNOTSUPP, c,
                "does not offer FI_DELIVERY_COMPLETE on fi_writemsg (" + Errno.name(rc) + ")");
        if (rc == 0) {
            CqErrEntry err = p.poller.expectError(p.a.txCq, RmaTest.T, "fi_writemsg(FI_DELIVERY_COMPLETE) through "
                    + what);
            assertSame("bad-write", err.context);
            assertTrue(err.err != 0, "error completion carries an errno: " + err);
        } else if (rc > 0 || rc == -Errno.EAGAIN) {
            fail("fi_writemsg through " + what + " returned " + rc);
        }
        // a negative errno at post time is also a refusal (the initiator may know the range is bad);
        // give the target time to (wrongly) apply anything that reached it before the caller checks its memory
        p.poller.expectQuiet(p.b.rxCq, 200, "target after a refused write");
    }
}
