package io.jfabric.bench.jmh;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqEntry;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.bench.NativeShm;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the libfabric bridge adds to a native call, on libfabric:shm (FI_THREAD_SAFE, as fi_pingpong
 * gets it), in one process so that no peer's timing blurs it:
 * <ul>
 *   <li>{@code emptyRead}: fi_cq_read on an empty CQ, the call a busy-polling receiver repeats;</li>
 *   <li>{@code selfMessage}: fi_recv, fi_inject of 64 bytes to the endpoint's own address, and
 *       fi_cq_read until the receive completes: one message's three data calls.</li>
 * </ul>
 * {@code bench/floors/bridge-calls.c} makes the same calls from C; the difference is the bridge's cost.
 */
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class BridgeCallBench {
    private static final long SIZE = 64;

    private final List<AutoCloseable> opened = new ArrayList<>();
    private CompletionQueue txCq;
    private CompletionQueue rxCq;
    private Endpoint ep;
    private MemorySegment rxBuf;
    private MemorySegment txBuf;
    private long self;
    private final CqEntry entry = new CqEntry();
    private final Object context = new Object();

    @Setup(Level.Trial)
    public void open() {
        FabricInfo fi = NativeShm.info();
        Fabric fabric = open(Fabrics.openFabric(fi));
        Domain domain = open(fabric.openDomain(fi));
        txCq = open(domain.openCq(NativeShm.cqAttr(fi.txAttr.size)));
        rxCq = open(domain.openCq(NativeShm.cqAttr(fi.rxAttr.size)));
        AddressVector av = open(domain.openAv(AvAttr.of(fi.domainAttr.avType)));
        ep = open(domain.openEndpoint(fi));
        ep.bind(av);
        ep.bind(txCq, BindFlags.TRANSMIT);
        ep.bind(rxCq, BindFlags.RECV);
        ep.enable();
        self = av.insert(ep.getName());
        Arena arena = open(Arena.ofShared());
        MemorySegment pages = arena.allocate(8192, 4096);
        rxBuf = pages.asSlice(0, SIZE);
        txBuf = pages.asSlice(4096, SIZE);
    }


    @TearDown(Level.Trial)
    public void close() throws Exception {
        for (AutoCloseable c : opened.reversed()) {
            c.close();
        }
    }

    private <T extends AutoCloseable> T open(T object) {
        opened.add(object);
        return object;
    }

    @Benchmark
    public int emptyRead() {
        int rc = rxCq.read(entry);
        if (rc != -Errno.EAGAIN) {
            throw new IllegalStateException("an idle CQ returned " + rc);
        }
        return rc;
    }

    @Benchmark
    public int selfMessage() {
        int rc = ep.recv(rxBuf, null, Fabrics.ADDR_UNSPEC, context);
        if (rc != 0) {
            throw new IllegalStateException("fi_recv " + Errno.name(-rc));
        }
        while ((rc = ep.inject(txBuf, self)) == -Errno.EAGAIN) {
            txCq.read(entry); // the first send to a peer maps its region; progress until it may go
        }
        if (rc != 0) {
            throw new IllegalStateException("fi_inject " + Errno.name(-rc));
        }
        do {
            rc = rxCq.read(entry);
        } while (rc == -Errno.EAGAIN);
        if (rc != 1 || entry.context != context) {
            throw new IllegalStateException("fi_cq_read " + rc);
        }
        return rc;
    }
}
