package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.jfabric.Caps;
import io.jfabric.Errno;
import io.jfabric.Fabrics;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A sockaddr_in whose sa_family is not AF_INET, inserted by itself, leaves libfabric 1.17's rxm AV broken: every
 * lookup then gives 0 bytes and every insert FI_EINVAL (src/test/c/av_batch_bad.c ALONE=1). The bridge refuses such
 * an address itself (FI_ADDR_NOTAVAIL, FI_EINVAL with FI_SYNC_ERR), so the AV keeps working.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AvBadFamilyTest {
    @ParameterizedTest
    @ValueSource(strings = {"libfabric:tcp;ofi_rxm", "libfabric:udp;ofi_rxd"})
    void aSockaddrOfAnotherFamilyIsRefusedAndTheAvKeepsWorking(String prov) {
        try (EndpointPair p = new EndpointPair(prov, Caps.MSG)) {
            byte[] name = p.b.getName();
            byte[] bad = new byte[name.length];
            Arrays.fill(bad, (byte) 0xFF);
            long[] out = {0};
            int[] errs = {0};
            assertEquals(0, p.av.insert(new byte[][] {bad}, out, Fabrics.SYNC_ERR, errs), "inserted");
            assertEquals(Fabrics.ADDR_NOTAVAIL, out[0]);
            assertEquals(Errno.EINVAL, errs[0], "FI_SYNC_ERR's errno for the bad address");
            assertArrayEquals(name, p.av.lookup(p.addrB), "an entry inserted before still looks up");
            long[] again = {Fabrics.ADDR_NOTAVAIL};
            assertEquals(1, p.av.insert(new byte[][] {p.a.getName()}, again, 0, null), "an insert after it");
            assertNotEquals(Fabrics.ADDR_NOTAVAIL, again[0]);
        }
    }
}
