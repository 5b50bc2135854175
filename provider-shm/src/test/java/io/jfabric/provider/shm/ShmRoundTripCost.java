package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
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
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Mode;
import io.jfabric.MrMode;
import io.jfabric.WaitObj;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The software cost of one {@code jfabric pingpong -p shm -e rdm -S 64} round trip with the other process
 * and the cache-line transfers taken out: one thread plays both sides (two domains, as two processes would
 * have), with pingpong's hints (FI_MSG, CONTEXT CQs without a wait object, inject below inject_size, one
 * receive always posted). Run by hand; prints the thread's CPU ns per round trip (robust to a loaded
 * machine, unlike wall time) and the bytes it allocated (must be 0).
 *
 * <pre>java -cp ... io.jfabric.provider.shm.ShmRoundTripCost [size] [round trips]</pre>
 */
public final class ShmRoundTripCost {

    private static final class Side implements AutoCloseable {
        final Fabric fabric;
        final Domain domain;
        final CompletionQueue txCq;
        final CompletionQueue rxCq;
        final AddressVector av;
        final Endpoint ep;
        final MemorySegment tx;
        final MemorySegment rx;
        final CqEntry comp = new CqEntry();
        final Object rxCtx = new Object();
        long peer;

        Side(Arena arena, int size) {
            FabricInfo hints = FabricInfo.hints();
            hints.epAttr.type = EndpointType.RDM;
            hints.caps = Caps.MSG;
            hints.mode = Mode.CONTEXT | Mode.CONTEXT2 | Mode.MSG_PREFIX;
            hints.domainAttr.mrMode = MrMode.LOCAL | MrMode.ALLOCATED | MrMode.PROV_KEY | MrMode.VIRT_ADDR;
            hints.fabricAttr.provName = "shm";
            FabricInfo fi = Fabrics.getInfo(hints).getFirst();
            fabric = Fabrics.openFabric(fi);
            domain = fabric.openDomain(fi);
            CqAttr a = CqAttr.of(CqFormat.CONTEXT, fi.txAttr.size);
            a.waitObj = WaitObj.NONE;
            txCq = domain.openCq(a);
            a = CqAttr.of(CqFormat.CONTEXT, fi.rxAttr.size);
            a.waitObj = WaitObj.NONE;
            rxCq = domain.openCq(a);
            av = domain.openAv(AvAttr.of(AvType.TABLE));
            ep = domain.openEndpoint(fi);
            ep.bind(av);
            ep.bind(txCq, BindFlags.TRANSMIT);
            ep.bind(rxCq, BindFlags.RECV);
            ep.enable();
            tx = arena.allocate(size, 4096);
            rx = arena.allocate(size, 4096);
            post();
        }

        void post() {
            if (ep.recv(rx, null, 0, rxCtx) != 0) {
                throw new IllegalStateException("recv");
            }
        }

        void ping() {
            while (ep.inject(tx, peer) != 0) {
                txCq.read(comp);
            }
        }

        void pong() {
            while (rxCq.read(comp) != 1) {
                Thread.onSpinWait();
            }
            post();
        }

        @Override
        public void close() {
            ep.close();
            av.close();
            rxCq.close();
            txCq.close();
            domain.close();
            fabric.close();
        }
    }

    public static void main(String[] args) {
        int size = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        long n = args.length > 1 ? Long.parseLong(args[1]) : 5_000_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        try (Arena arena = Arena.ofShared(); Side a = new Side(arena, size); Side b = new Side(arena, size)) {
            a.peer = a.av.insert(b.ep.getName());
            b.peer = b.av.insert(a.ep.getName());
            loop(a, b, n);
            for (int r = 0; r < rounds; r++) {
                long alloc0 = ThreadAllocations.now();
                long cpu0 = cpuNanos();
                long t0 = System.nanoTime();
                loop(a, b, n);
                long wall = System.nanoTime() - t0;
                long cpu = cpuNanos() - cpu0;
                long alloc = ThreadAllocations.now() - alloc0;
                System.out.printf("size %d: %.1f ns CPU (%.1f wall) per round trip (2 injects, 2 receives), "
                        + "allocated %d bytes%n", size, cpu / (double) n, wall / (double) n, alloc);
            }
        }
    }

    /** The current thread's CPU time (ThreadMXBean, reached reflectively: the test module does not read java.management). */
    private static long cpuNanos() {
        try {
            Object bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                    .invoke(null);
            return (long) Class.forName("java.lang.management.ThreadMXBean").getMethod("getCurrentThreadCpuTime")
                    .invoke(bean);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void loop(Side a, Side b, long n) {
        for (long i = 0; i < n; i++) {
            a.ping();
            b.pong();
            b.ping();
            a.pong();
        }
    }
}
