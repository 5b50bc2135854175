package io.jfabric.provider.shm;

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
import io.jfabric.AddressVector;
import io.jfabric.Threading;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FI_THREAD_SAFE: offered when the hints ask (DOMAIN otherwise), and then several threads post sends,
 * post receives and read the same CQs at once without losing or duplicating anything.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShmThreadSafeTest {

    private static final int THREADS = 3;
    private static final int PER_THREAD = 3000;

    private static FabricInfo info(Threading threading) {
        FabricInfo hints = FabricInfo.hints();
        hints.caps = Caps.MSG | Caps.TAGGED;
        hints.epAttr.type = EndpointType.RDM;
        hints.fabricAttr.provName = "shm";
        hints.domainAttr.threading = threading;
        List<FabricInfo> infos = Fabrics.getInfo(hints);
        assertTrue(!infos.isEmpty(), "no shm info for threading " + threading);
        return infos.get(0);
    }

    /** fi_domain(3): FI_THREAD_UNSPEC gets "the greatest level of parallelism", as libfabric's shm answers. */
    @Test
    void noThreadingLevelGetsThreadSafeAndANarrowerAskedLevelIsKept() {
        assertEquals(Threading.SAFE, info(Threading.UNSPEC).domainAttr.threading);
        assertEquals(Threading.SAFE, Fabrics.getInfo(null).stream()
                .filter(i -> "shm".equals(i.fabricAttr.provName)).findFirst().orElseThrow().domainAttr.threading);
        assertEquals(Threading.SAFE, info(Threading.SAFE).domainAttr.threading);
        assertEquals(Threading.DOMAIN, info(Threading.DOMAIN).domainAttr.threading);
        assertEquals(Threading.COMPLETION, info(Threading.COMPLETION).domainAttr.threading);
    }

    @Test
    void concurrentSendersReceiversAndCqReadersLoseNothing() throws Exception {
        FabricInfo info = info(Threading.SAFE);
        try (Arena arena = Arena.ofShared()) {
            Fabric fabric = Fabrics.openFabric(info);
            Domain domain = fabric.openDomain(info);
            CompletionQueue txCq = domain.openCq(CqAttr.of(CqFormat.TAGGED, 8192));
            CompletionQueue rxCq = domain.openCq(CqAttr.of(CqFormat.TAGGED, 8192));
            AddressVector av = domain.openAv(AvAttr.of(AvType.TABLE));
            Endpoint a = domain.openEndpoint(info);
            Endpoint b = domain.openEndpoint(info);
            for (Endpoint ep : new Endpoint[] {a, b}) {
                ep.bind(txCq, BindFlags.TRANSMIT);
                ep.bind(rxCq, BindFlags.RECV);
                ep.bind(av);
                ep.enable();
            }
            long toB = av.insert(b.getName());
            int total = THREADS * PER_THREAD;
            // one 8-byte buffer per message; its tag and its contents both say which message it is
            MemorySegment rx = arena.allocate(8L * total);
            MemorySegment tx = arena.allocate(8L * total);
            ConcurrentHashMap<Long, Boolean> received = new ConcurrentHashMap<>();
            AtomicInteger sendCompletions = new AtomicInteger();
            AtomicReference<String> failure = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            Thread[] threads = new Thread[3 * THREADS];
            for (int t = 0; t < THREADS; t++) {
                final int id = t;
                // receivers post receives that take any tag, each into its own 8 bytes (so no mix of posted
                // receives and unexpected messages can wait on each other)
                threads[t] = new Thread(() -> run(start, failure, () -> {
                    for (int i = 0; i < PER_THREAD && failure.get() == null; i++) {
                        long m = (long) id * PER_THREAD + i;
                        int rc;
                        while ((rc = b.trecv(rx.asSlice(8 * m, 8), null, Fabrics.ADDR_UNSPEC, 0, -1L, null))
                                == -Errno.EAGAIN && failure.get() == null) {
                            Thread.onSpinWait();
                        }
                        check(rc == 0 || failure.get() != null, "trecv " + m + " returned " + rc);
                    }
                }));
                threads[THREADS + t] = new Thread(() -> run(start, failure, () -> {
                    CqEntry[] one = {new CqEntry()};
                    for (int i = 0; i < PER_THREAD && failure.get() == null; i++) {
                        long m = (long) id * PER_THREAD + i;
                        tx.set(ValueLayout.JAVA_LONG, 8 * m, m);
                        int rc;
                        while ((rc = a.tsend(tx.asSlice(8 * m, 8), null, toB, m, null)) == -Errno.EAGAIN
                                && failure.get() == null) {
                            if (txCq.read(one, 1) == 1) {
                                sendCompletions.incrementAndGet();
                            }
                        }
                        check(rc == 0 || failure.get() != null, "tsend " + m + " returned " + rc);
                    }
                }));
                // CQ readers: every thread reads both CQs until everything has arrived
                threads[2 * THREADS + t] = new Thread(() -> run(start, failure, () -> {
                    CqEntry[] one = {new CqEntry()};
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while ((received.size() < total || sendCompletions.get() < total) && failure.get() == null) {
                        check(System.nanoTime() < deadline, "stalled: " + received.size() + " received, "
                                + sendCompletions.get() + " sends completed");
                        int rc = rxCq.read(one, 1);
                        if (rc == 1) {
                            long tag = one[0].tag;
                            long content = MemorySegment.ofAddress(one[0].buf).reinterpret(8)
                                    .get(ValueLayout.JAVA_LONG, 0);
                            check(content == tag, "message " + tag + " carries " + content);
                            check(received.put(tag, Boolean.TRUE) == null, "message " + tag + " completed twice");
                        } else {
                            check(rc == -Errno.EAGAIN, "rx cq read " + rc);
                        }
                        rc = txCq.read(one, 1);
                        if (rc == 1) {
                            sendCompletions.incrementAndGet();
                        } else {
                            check(rc == -Errno.EAGAIN, "tx cq read " + rc);
                        }
                    }
                }));
            }
            for (Thread t : threads) {
                t.start();
            }
            start.countDown();
            for (Thread t : threads) {
                t.join(40_000);
            }
            assertNull(failure.get());
            assertEquals(total, received.size());
            assertEquals(total, sendCompletions.get());
            a.close();
            b.close();
            av.close();
            txCq.close();
            rxCq.close();
            domain.close();
            fabric.close();
        }
    }

    private interface Body {
        void run() throws Exception;
    }

    private static void run(CountDownLatch start, AtomicReference<String> failure, Body body) {
        try {
            start.await();
            body.run();
        } catch (Throwable t) {
            failure.compareAndSet(null, t.toString());
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
