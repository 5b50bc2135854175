package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.AddressVector;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Each side in its own fabric and domain (as two processes would be), receives posted before sends. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TwoDomainTest {
    record Side(Fabric f, Domain d, CompletionQueue tx, CompletionQueue rx, AddressVector av, Endpoint ep) {
        static Side open(FabricInfo info) {
            Fabric f = new LibfabricProvider().openFabric(info);
            Domain d = f.openDomain(info);
            CompletionQueue tx = d.openCq(CqAttr.of(CqFormat.TAGGED, 64));
            CompletionQueue rx = d.openCq(CqAttr.of(CqFormat.TAGGED, 64));
            AddressVector av = d.openAv(AvAttr.of(AvType.MAP));
            Endpoint ep = d.openEndpoint(info);
            ep.bind(av);
            ep.bind(tx, BindFlags.TRANSMIT);
            ep.bind(rx, BindFlags.RECV);
            ep.enable();
            return new Side(f, d, tx, rx, av, ep);
        }

        void close() {
            ep.close();
            av.close();
            tx.close();
            rx.close();
            d.close();
            f.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"libfabric:shm", "libfabric:tcp;ofi_rxm", "libfabric:shm/nocaps"})
    void contextsComeBackInOrderAcrossDomains(String variant) {
        String prov = variant.replace("/nocaps", "");
        Hints h = Hints.create().provider(prov).epType(EndpointType.RDM);
        if (!variant.endsWith("/nocaps")) {
            h.caps(Caps.MSG);
        }
        if (prov.contains("tcp")) {
            h.domain("lo");
        }
        FabricInfo info = new LibfabricProvider().getInfo(Fabrics.API_VERSION, null, null, 0, h.build()).get(0);
        Side a = Side.open(info);
        Side b = Side.open(info);
        try (Arena arena = Arena.ofShared()) {
            long toB = a.av.insert(b.ep.getName());
            long toA = b.av.insert(a.ep.getName());
            int n = 8;
            MemorySegment buf = arena.allocate(64L * n);
            Integer[] ctx = new Integer[n];
            for (int i = 0; i < n; i++) {
                ctx[i] = 1000 + i;
                assertEquals(0, b.ep.recv(buf.asSlice(64L * i, 64), null, toA, ctx[i]));
            }
            for (int i = 0; i < n; i++) {
                final int k = i;
                int rc;
                long deadline = System.nanoTime() + 5_000_000_000L;
                while ((rc = a.ep.send(buf.asSlice(64L * k, 8), null, toB, "s" + k)) == -Errno.EAGAIN) {
                    a.tx.read(new CqEntry[0], 0);
                    b.rx.read(new CqEntry[0], 0);
                    if (System.nanoTime() > deadline) {
                        fail("send kept returning EAGAIN");
                    }
                }
                assertEquals(0, rc);
            }
            CqEntry e = new CqEntry();
            long deadline = System.nanoTime() + 10_000_000_000L;
            for (int i = 0; i < n; ) {
                a.tx.read(e);
                if (b.rx.read(e) == 1) {
                    assertSame(ctx[i], e.context, "receive " + i + " of " + n);
                    i++;
                }
                if (System.nanoTime() > deadline) {
                    fail("only " + i + " receives completed");
                }
            }
        } finally {
            a.close();
            b.close();
        }
    }
}
