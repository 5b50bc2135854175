package io.jfabric.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.Caps;
import io.jfabric.Domain;
import io.jfabric.EndpointType;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Malformed addresses inserted into a tcp;ofi_rxm address vector: wrong lengths, unknown families, port 0,
 * and a seeded stream of mutations of a genuine sockaddr_in. Each refused address must read back as
 * FI_ADDR_NOTAVAIL with a positive errno under FI_SYNC_ERR, the single-address insert must throw a
 * FabricException with a message, fi_av_straddr must never throw, and good addresses in the same batch
 * must still be inserted.
 */
@Timeout(30)
class RxmHostileAddressTest {
    private Fabric fabric;
    private Domain domain;
    private AddressVector av;

    @BeforeEach
    void open() {
        FabricInfo hints = Hints.create().caps(Caps.MSG | Caps.TAGGED).epType(EndpointType.RDM)
                .provider("tcp;ofi_rxm").build();
        FabricInfo info = Fabrics.getInfo(Fabrics.API_VERSION, "127.0.0.1", null, Fabrics.SOURCE, hints).getFirst();
        fabric = Fabrics.openFabric(info);
        domain = fabric.openDomain(info);
        av = domain.openAv(AvAttr.of(AvType.TABLE));
    }

    @AfterEach
    void close() {
        av.close();
        domain.close();
        fabric.close();
    }

    private static byte[] sockaddrIn(int family, int port, int a, int b, int c, int d, int length) {
        byte[] s = new byte[length];
        if (length >= 2) {
            s[0] = (byte) family;
            s[1] = (byte) (family >>> 8);
        }
        if (length >= 4) {
            s[2] = (byte) (port >>> 8);
            s[3] = (byte) port;
        }
        if (length >= 8) {
            s[4] = (byte) a;
            s[5] = (byte) b;
            s[6] = (byte) c;
            s[7] = (byte) d;
        }
        return s;
    }

    @Test
    void malformedAddressesAreNotAvailableAndGoodOnesInTheSameBatchStillGoIn() {
        byte[] good = sockaddrIn(2, 40000, 127, 0, 0, 1, 16);
        byte[][] batch = {
            null,
            new byte[0],
            sockaddrIn(2, 40000, 127, 0, 0, 1, 15), // one byte short
            sockaddrIn(2, 40000, 127, 0, 0, 1, 17), // one byte long
            sockaddrIn(2, 0, 127, 0, 0, 1, 16), // port 0
            sockaddrIn(99, 40000, 127, 0, 0, 1, 16), // unknown family
            sockaddrIn(10, 40000, 0, 0, 0, 0, 16), // AF_INET6 with an AF_INET length
            sockaddrIn(1, 40000, 0, 0, 0, 0, 110), // AF_UNIX
            "fi_sockaddr_in://127.0.0.1:40000".getBytes(java.nio.charset.StandardCharsets.US_ASCII), // a string
            good,
        };
        long[] out = new long[batch.length];
        int[] errs = new int[batch.length];
        int ok = av.insert(batch, out, Fabrics.SYNC_ERR, errs);
        assertEquals(1, ok, "only the well-formed address goes in; fi_addrs " + java.util.Arrays.toString(out) + " errnos " + java.util.Arrays.toString(errs));
        for (int i = 0; i < batch.length - 1; i++) {
            assertEquals(Fabrics.ADDR_NOTAVAIL, out[i], "address " + i);
            assertTrue(errs[i] > 0, "no errno for address " + i);
            assertNotNull(av.straddr(batch[i]), "straddr of address " + i);
            byte[] one = batch[i];
            FabricException e = assertThrows(FabricException.class, () -> av.insert(one), "address " + i);
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank());
        }
        assertTrue(out[batch.length - 1] != Fabrics.ADDR_NOTAVAIL);
        assertEquals(0, errs[batch.length - 1]);
    }

    @Test
    void mutatedSockaddrsNeverThrowFromTheBatchInsert() {
        byte[] good = sockaddrIn(2, 40000, 127, 0, 0, 1, 16);
        SplittableRandom r = new SplittableRandom(21);
        int refused = 0;
        for (int i = 0; i < 2000; i++) {
            byte[] a = Mutator.mutate(good, r.nextLong());
            long[] out = new long[1];
            int[] errs = new int[1];
            int ok = av.insert(new byte[][] {a}, out, Fabrics.SYNC_ERR, errs);
            assertNotNull(av.straddr(a));
            if (ok == 0) {
                refused++;
                assertEquals(Fabrics.ADDR_NOTAVAIL, out[0], Mutator.hex(a));
                assertTrue(errs[0] > 0, "no errno for " + Mutator.hex(a));
            } else {
                assertEquals(1, ok);
                assertEquals(0, errs[0]);
            }
        }
        assertTrue(refused > 0, "no mutated sockaddr was refused");
    }
}
