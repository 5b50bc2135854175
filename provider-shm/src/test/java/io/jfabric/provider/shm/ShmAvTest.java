package io.jfabric.provider.shm;

import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.AddressVector;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The shm AV: fi_av_remove is all or nothing, a removed fi_addr is gone for good, and FI_EVENT inserts report. */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShmAvTest extends ShmPairFixture {

    @Test
    void aRemoveWithOneBadFiAddrRemovesNothingAndARemovedFiAddrIsGone() {
        long bAgain = a.insert(b);
        assertEquals(-Errno.EINVAL, a.av.remove(new long[] {aToB, 999}, 0), "one fi_addr never handed out");
        assertArrayEquals(b.name(), trimmed(a.av.lookup(aToB)), "the valid one of that call is still there");
        assertEquals(0, a.av.remove(new long[] {aToB, aToB}, 0), "an fi_addr listed twice is removed once");
        assertEquals(Errno.ENOENT, assertThrows(FabricException.class, () -> a.av.lookup(aToB)).errno());
        assertArrayEquals(b.name(), trimmed(a.av.lookup(bAgain)), "the other entry for the same peer stays");
        long third = a.insert(b);
        assertEquals(bAgain + 1, third, "a new insert takes a new fi_addr; the removed one is not handed out again");
    }

    @Test
    void anEventAvReportsEachInsertOnItsEq() {
        AvAttr attr = AvAttr.of(AvType.TABLE);
        attr.flags = AvAttr.EVENT;
        try (AddressVector av = a.domain.openAv(attr); EventQueue eq = a.fabric.openEq(EqAttr.defaults())) {
            assertEquals(Errno.ENOEQ, assertThrows(FabricException.class,
                    () -> av.insert(new byte[][] {b.name()}, new long[1], 0, "no eq")).errno());
            av.bind(eq);
            long[] out = new long[2];
            assertEquals(0, av.insert(new byte[][] {b.name(), "fi_shm://nobody-here".getBytes()}, out, 0, "ctx"));
            EqEntry e = new EqEntry();
            assertEquals(EqEvent.AV_COMPLETE, eq.read(e, 0));
            assertSame("ctx", e.context);
            assertEquals(1, e.data, "one of the two addresses names a live region");
            assertArrayEquals(b.name(), trimmed(av.lookup(out[0])));
        }
    }

    private static byte[] trimmed(byte[] addr) {
        int n = addr.length;
        while (n > 0 && addr[n - 1] == 0) {
            n--;
        }
        return java.util.Arrays.copyOf(addr, n);
    }
}
