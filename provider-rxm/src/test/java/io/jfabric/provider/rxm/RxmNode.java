package io.jfabric.provider.rxm;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.Threading;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/** One tcp;ofi_rxm endpoint with its fabric, domain, AV and CQ, for tests. */
final class RxmNode implements AutoCloseable {
    final FabricInfo info;
    final Fabric fabric;
    final Domain domain;
    final AddressVector av;
    final CompletionQueue cq;
    final Endpoint ep;
    final List<CqEntry> completions = new ArrayList<>();
    final List<CqErrEntry> errors = new ArrayList<>();
    private final CqEntry[] batch = CqEntry.array(16);
    /** Counters a test opened on the domain, closed once the endpoint is. */
    final List<io.jfabric.Counter> counters = new ArrayList<>();

    RxmNode() {
        this(Caps.MSG | Caps.TAGGED | Caps.RMA | Caps.DIRECTED_RECV | Caps.SOURCE | Caps.MULTI_RECV);
    }

    RxmNode(long caps) {
        this(caps, new CqAttr());
    }

    RxmNode(long caps, CqAttr cqAttr) {
        this(caps, cqAttr, null);
    }

    /** @param threading the threading level the hints ask, or null to leave it unset (FI_THREAD_SAFE) */
    RxmNode(Threading threading) {
        this(Caps.MSG | Caps.TAGGED | Caps.RMA | Caps.DIRECTED_RECV | Caps.SOURCE | Caps.MULTI_RECV, new CqAttr(),
                threading);
    }

    RxmNode(long caps, CqAttr cqAttr, Threading threading) {
        Hints h = Hints.create().caps(caps).epType(EndpointType.RDM).provider("tcp;ofi_rxm");
        FabricInfo hints = (threading == null ? h : h.threading(threading)).build();
        List<FabricInfo> infos = Fabrics.getInfo(Fabrics.API_VERSION, "127.0.0.1", null, Fabrics.SOURCE, hints);
        info = infos.getFirst();
        fabric = Fabrics.openFabric(info);
        domain = fabric.openDomain(info);
        av = domain.openAv(AvAttr.of(AvType.TABLE));
        cqAttr.format = CqFormat.TAGGED;
        cq = domain.openCq(cqAttr);
        ep = domain.openEndpoint(info);
        ep.bind(av);
        ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
        ep.enable();
    }

    io.jfabric.Counter openCounter() {
        io.jfabric.Counter c = domain.openCounter(new io.jfabric.CounterAttr());
        counters.add(c);
        return c;
    }

    byte[] name() {
        return ep.getName();
    }

    long insert(byte[] addr) {
        return av.insert(addr);
    }

    /** Reads completions into the lists; returns how many were read (successes plus errors). */
    int poll() {
        int n = cq.readFrom(batch, batch.length);
        if (n > 0) {
            for (int i = 0; i < n; i++) {
                CqEntry c = new CqEntry();
                c.copyFrom(batch[i]);
                completions.add(c);
            }
            return n;
        }
        if (n == -Errno.EAVAIL) {
            CqErrEntry e = new CqErrEntry();
            if (cq.readError(e, 0) == 1) {
                errors.add(e);
                return 1;
            }
        }
        return 0;
    }

    /** Retries {@code op} while it returns -EAGAIN, polling this node and {@code others}. */
    static int retry(IntSupplier op, long timeoutMillis, RxmNode... pollAlso) {
        long end = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (true) {
            int rc = op.getAsInt();
            if (rc != -Errno.EAGAIN) {
                return rc;
            }
            for (RxmNode n : pollAlso) {
                n.poll();
            }
            if (System.nanoTime() > end) {
                return rc;
            }
        }
    }

    /** Polls every node until {@code done} holds or the time runs out. */
    static boolean await(java.util.function.BooleanSupplier done, long timeoutMillis, RxmNode... nodes) {
        long end = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                return false;
            }
            for (RxmNode n : nodes) {
                n.poll();
            }
        }
        return true;
    }

    CqEntry completionFor(Object ctx) {
        for (CqEntry c : completions) {
            if (c.context == ctx) {
                return c;
            }
        }
        return null;
    }

    CqErrEntry errorFor(Object ctx) {
        for (CqErrEntry c : errors) {
            if (c.context == ctx) {
                return c;
            }
        }
        return null;
    }

    static MemorySegment pattern(Arena arena, long size, int seed) {
        MemorySegment s = arena.allocate(Math.max(size, 1), 64).asSlice(0, size);
        for (long i = 0; i < size; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
        return s;
    }

    static long firstMismatch(MemorySegment a, MemorySegment b) {
        return a.mismatch(b);
    }

    @Override
    public void close() {
        ep.close();
        for (io.jfabric.Counter c : counters) {
            c.close();
        }
        cq.close();
        av.close();
        domain.close();
        fabric.close();
    }

    @Override
    public String toString() {
        return ep.toString();
    }
}
