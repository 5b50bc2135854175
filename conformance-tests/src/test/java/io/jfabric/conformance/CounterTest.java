package io.jfabric.conformance;

import io.jfabric.BindFlags;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.Domain;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fabtests cntr_test: counters on their own (set, add, error values, wait with a timeout, a wait woken by an
 * add from another thread) and bound to endpoints, counting sends and receives.
 */
@Timeout(60)
class CounterTest {
    static final long T = 10_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    private Counter openCounter(FabricCase c, Domain domain) {
        try {
            return dump.track(domain.openCounter(CounterAttr.defaults()));
        } catch (FabricException e) {
            Gate.require(e.errno() != Errno.ENOSYS && e.errno() != Errno.EOPNOTSUPP, c,
                    "offers no counters (fi_cntr_open: " + e.getMessage() + ")");
            throw e;
        }
    }

    @ForEachFabric
    void setAddErrorAndWaitBehaveAsFiCntr(FabricCase c) throws Exception {
        Domain domain = OpenDomain.of(c, dump).domain();
        Counter cntr = openCounter(c, domain);
        assertEquals(0, cntr.read(), "a new counter reads 0");
        assertEquals(0, cntr.readError(), "a new counter's error value is 0");
        cntr.add(5);
        cntr.add(2);
        assertEquals(7, cntr.read());
        cntr.set(100);
        assertEquals(100, cntr.read());
        cntr.addError(3);
        cntr.setError(cntr.readError() + 1);
        assertEquals(4, cntr.readError());
        assertEquals(100, cntr.read(), "errors do not change the success value");
        assertEquals(0, cntr.await(100, 1000), "fi_cntr_wait for a value already reached");
        long t0 = System.nanoTime();
        int rc = cntr.await(101, 200);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(rc == -Errno.ETIMEDOUT || rc == -Errno.EAVAIL, "fi_cntr_wait below its threshold returned "
                + Errno.name(rc) + " (fi_cntr(3): -FI_ETIMEDOUT, or an error count change)");
        assertTrue(ms >= 150, "fi_cntr_wait returned after " + ms + " ms, before its 200 ms timeout");

        cntr.setError(0);
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> cntr.await(110, 20_000));
        Thread.sleep(100);
        cntr.add(10);
        assertEquals(0, waiter.get(10, TimeUnit.SECONDS), "fi_cntr_wait woken by fi_cntr_add from another thread");
    }

    @ForEachFabric
    void boundCountersCountSendsAndReceives(FabricCase c) {
        Gate.messaging(c);
        Counter[] tx = new Counter[1];
        Counter[] rx = new Counter[1];
        EndpointPair.Options o = new EndpointPair.Options();
        o.beforeEndpoint = s -> (s.name.equals("a") ? tx : rx)[0] = openCounter(c, s.domain);
        o.beforeEnable = s -> s.ep.bind(s.name.equals("a") ? tx[0] : rx[0],
                s.name.equals("a") ? BindFlags.TRANSMIT : BindFlags.RECV);
        EndpointPair p = EndpointPair.open(c, dump, o);
        int n = 12;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buf = Mem.alloc(arena, 256);
            Mem.fill(buf, 17);
            MemorySegment[] rbufs = new MemorySegment[n];
            for (int i = 0; i < n; i++) {
                MemorySegment r = Mem.alloc(arena, 256);
                rbufs[i] = r;
                p.poller.post("fi_recv", () -> p.b.ep.recv(r, p.b.desc(r), Fabrics.ADDR_UNSPEC, "rx"));
            }
            for (int i = 0; i < n; i++) {
                p.poller.post("fi_send", () -> p.a.ep.send(buf, p.a.desc(buf), p.a.peer, "tx"));
            }
            long deadline = System.nanoTime() + T * 1_000_000L;
            while ((tx[0].read() < n || rx[0].read() < n) && System.nanoTime() < deadline) {
                p.poller.drive();
            }
            assertEquals(n, tx[0].read(), "the transmit counter counts each completed send");
            assertEquals(n, rx[0].read(), "the receive counter counts each completed receive");
            assertEquals(0, tx[0].readError());
            assertEquals(0, rx[0].readError());
            for (MemorySegment r : rbufs) {
                assertEquals(-1, Mem.mismatch(r, 17));
            }
        }
    }
}
