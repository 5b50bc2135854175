package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jfabric.Caps;
import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * libfabric 1.17's rxd answers fi_av_lookup of fi_addr 0, the first address an AV hands out, with FI_ENODATA (its
 * index map reads 0 as absent). Through the bridge the lookup returns the address that fi_addr was inserted with,
 * as fi_av(3) says, and a removed fi_addr is still refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RxdAvLookupTest {
    @Test
    void theFirstInsertedAddressIsFoundAndARemovedOneIsNot() {
        try (EndpointPair p = new EndpointPair("libfabric:udp;ofi_rxd", Caps.MSG)) {
            assertEquals(0, p.addrA, "the pair's first insert is fi_addr 0, the one rxd loses");
            assertArrayEquals(p.a.getName(), p.av.lookup(p.addrA), "fi_av_lookup of fi_addr 0");
            assertArrayEquals(p.b.getName(), p.av.lookup(p.addrB), "fi_av_lookup of fi_addr 1");
            assertEquals(0, p.av.remove(new long[] {p.addrA}, 0));
            FabricException e = assertThrows(FabricException.class, () -> p.av.lookup(p.addrA));
            assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
        }
    }
}
