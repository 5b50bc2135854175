package io.jfabric.bench;

import io.jfabric.Access;
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
import io.jfabric.MemoryRegion;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Locale;

/**
 * The JVM rungs of bench/shm-ladder: one side of a 64-byte ping-pong over native shm, in one of three forms.
 * <ul>
 *   <li>{@code c-in-jvm}: bench/floors/shm-ladder.c's own C loop, called once from Java: what a JVM process
 *       around the same C code costs;</li>
 *   <li>{@code ffm}: the same three calls (fi_inject, fi_cq_read, fi_recv) made from a Java loop through
 *       plain FFM downcalls on the ops-table entries: what the JVM's downcalls cost;</li>
 *   <li>{@code api}: the same loop on jfabric's API over libfabric:shm: what the bridge's layer costs.</li>
 * </ul>
 * The sides meet through files in a rendezvous directory. Prints the one-way time in microseconds.
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar io.jfabric.bench.ShmLadder
 *     c-in-jvm|ffm|api server|client &lt;dir&gt; &lt;iterations&gt; bench/target/libshm-ladder.so</pre>
 */
public final class ShmLadder {
    private static final long SIZE = 64;
    private static final long WARMUP = 100_000;
    private static final long EAGAIN = -Errno.EAGAIN;

    private ShmLadder() {}

    public static void main(String[] args) throws Throwable {
        if (args.length != 5) {
            System.err.println("usage: ShmLadder c-in-jvm|ffm|api server|client <dir> <iterations> <libshm-ladder.so>");
            System.exit(2);
        }
        boolean server = args[1].equals("server");
        Path dir = Path.of(args[2]);
        long iterations = Long.parseLong(args[3]);
        double us = switch (args[0]) {
            case "c-in-jvm" -> new Native(Path.of(args[4])).cLoop(server, dir, iterations);
            case "ffm" -> new Native(Path.of(args[4])).ffmLoop(server, dir, iterations);
            case "api" -> apiLoop(server, dir, iterations);
            default -> throw new IllegalArgumentException("unknown rung " + args[0]);
        };
        System.out.printf(Locale.ROOT, "%.3f%n", us);
    }

    /** {@code n} round trips of one side's loop. */
    private interface RoundTrips {
        void run(int n) throws Throwable;
    }

    /**
     * {@link #WARMUP} round trips, then {@code iterations} timed ones; returns the one-way microseconds. Both go
     * through the same short calls, as jfabric pingpong's do, so that C2 compiles the loop once, in the ordinary
     * way, for both: one long loop is compiled on stack during the warm-up, and that code is thrown away where the
     * warm-up ends (PingPong.roundTrips says more).
     */
    private static double timed(RoundTrips loop, long iterations) throws Throwable {
        for (long done = 0; done < WARMUP; done += ROUND_TRIPS_PER_CALL) {
            loop.run((int) Math.min(ROUND_TRIPS_PER_CALL, WARMUP - done));
        }
        long start = System.nanoTime();
        for (long done = 0; done < iterations; done += ROUND_TRIPS_PER_CALL) {
            loop.run((int) Math.min(ROUND_TRIPS_PER_CALL, iterations - done));
        }
        return (System.nanoTime() - start) / (double) iterations / 2 / 1000;
    }

    private static final int ROUND_TRIPS_PER_CALL = 64;

    /** The C side of the ladder, loaded into this JVM. */
    private static final class Native {
        private final Linker linker = Linker.nativeLinker();
        private final SymbolLookup lib;

        Native(Path library) {
            lib = SymbolLookup.libraryLookup(library, Arena.global());
        }

        private MethodHandle function(String name, FunctionDescriptor d) {
            return linker.downcallHandle(lib.find(name).orElseThrow(), d);
        }

        private void open(boolean server, Path dir) throws Throwable {
            MethodHandle open = function("ladder_open",
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
            try (Arena a = Arena.ofConfined()) {
                int rc = (int) open.invokeExact(server ? 1 : 0, a.allocateFrom(dir.toString()));
                if (rc != 0) {
                    throw new IllegalStateException("ladder_open: " + rc);
                }
            }
        }

        double cLoop(boolean server, Path dir, long iterations) throws Throwable {
            open(server, dir);
            MethodHandle loop = function("ladder_loop",
                    FunctionDescriptor.of(ValueLayout.JAVA_DOUBLE, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
            double us = (double) loop.invokeExact(server ? 1 : 0, iterations);
            function("ladder_close", FunctionDescriptor.ofVoid()).invokeExact();
            return us;
        }

        double ffmLoop(boolean server, Path dir, long iterations) throws Throwable {
            open(server, dir);
            MethodHandle fn = function("ladder_function", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            MethodHandle word = function("ladder_word", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
            MethodHandle recv = linker.downcallHandle((MemorySegment) fn.invokeExact(0), words(6));
            MethodHandle inject = linker.downcallHandle((MemorySegment) fn.invokeExact(1), words(4));
            MethodHandle read = linker.downcallHandle((MemorySegment) fn.invokeExact(2), words(3));
            long ep = (long) word.invokeExact(0);
            long cq = (long) word.invokeExact(1);
            long peer = (long) word.invokeExact(2);
            long rx = (long) word.invokeExact(3);
            long tx = (long) word.invokeExact(4);
            long context = (long) word.invokeExact(5);
            long entry = (long) word.invokeExact(6);
            RoundTrips loop = n -> {
                for (int i = 0; i < n; i++) {
                    if (server) {
                        awaitRecv(read, cq, entry);
                        postRecv(recv, ep, rx, context);
                        send(inject, ep, tx, peer);
                    } else {
                        send(inject, ep, tx, peer);
                        awaitRecv(read, cq, entry);
                        postRecv(recv, ep, rx, context);
                    }
                }
            };
            double us = timed(loop, iterations);
            function("ladder_close", FunctionDescriptor.ofVoid()).invokeExact();
            return us;
        }

        private static FunctionDescriptor words(int arity) {
            MemoryLayout[] a = new MemoryLayout[arity];
            Arrays.fill(a, ValueLayout.JAVA_LONG);
            return FunctionDescriptor.of(ValueLayout.JAVA_LONG, a);
        }

        private static void postRecv(MethodHandle recv, long ep, long buf, long context) throws Throwable {
            long rc;
            while ((rc = (long) recv.invokeExact(ep, buf, SIZE, 0L, -1L, context)) == EAGAIN) {
                Thread.onSpinWait();
            }
            check(rc, "fi_recv");
        }

        private static void send(MethodHandle inject, long ep, long buf, long peer) throws Throwable {
            long rc;
            while ((rc = (long) inject.invokeExact(ep, buf, SIZE, peer)) == EAGAIN) {
                Thread.onSpinWait();
            }
            check(rc, "fi_inject");
        }

        private static void awaitRecv(MethodHandle read, long cq, long entry) throws Throwable {
            long rc;
            while ((rc = (long) read.invokeExact(cq, entry, 1L)) == EAGAIN) {
                // busy-poll, as the C loop does
            }
            check(rc == 1 ? 0 : rc, "fi_cq_read");
        }
    }

    private static void check(long rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " returned " + rc);
        }
    }

    private static double apiLoop(boolean server, Path dir, long iterations) throws Throwable {
        FabricInfo fi = NativeShm.info();
        try (Fabric fabric = Fabrics.openFabric(fi);
             Domain domain = fabric.openDomain(fi);
             CompletionQueue txCq = domain.openCq(NativeShm.cqAttr(fi.txAttr.size));
             CompletionQueue rxCq = domain.openCq(NativeShm.cqAttr(fi.rxAttr.size));
             AddressVector av = domain.openAv(AvAttr.of(fi.domainAttr.avType));
             Endpoint ep = domain.openEndpoint(fi);
             Arena arena = Arena.ofShared()) {
            ep.bind(av);
            ep.bind(txCq, BindFlags.TRANSMIT);
            ep.bind(rxCq, BindFlags.RECV);
            ep.enable();
            MemorySegment pages = arena.allocate(8192, 4096);
            MemorySegment rx = pages.asSlice(0, SIZE);
            MemorySegment tx = pages.asSlice(4096, SIZE);
            try (MemoryRegion mr = domain.registerMemory(pages, Access.SEND | Access.RECV, 0, 0x5eed, 0)) {
                long peer = av.insert(exchangeNames(server, dir, ep.getName()));
                Object context = new Object();
                CqEntry entry = new CqEntry();
                postRecv(ep, rx, mr, context);
                Thread.sleep(1000); // the other side has posted its first receive too
                return timed(n -> {
                    for (int i = 0; i < n; i++) {
                        if (server) {
                            awaitRecv(rxCq, entry);
                            postRecv(ep, rx, mr, context);
                            send(ep, tx, peer);
                        } else {
                            send(ep, tx, peer);
                            awaitRecv(rxCq, entry);
                            postRecv(ep, rx, mr, context);
                        }
                    }
                }, iterations);
            }
        }
    }


    private static void postRecv(Endpoint ep, MemorySegment buf, MemoryRegion mr, Object context) {
        int rc;
        while ((rc = ep.recv(buf, mr, Fabrics.ADDR_UNSPEC, context)) == EAGAIN) {
            Thread.onSpinWait();
        }
        check(rc, "fi_recv");
    }

    private static void send(Endpoint ep, MemorySegment buf, long peer) {
        int rc;
        while ((rc = ep.inject(buf, peer)) == EAGAIN) {
            Thread.onSpinWait();
        }
        check(rc, "fi_inject");
    }

    private static void awaitRecv(CompletionQueue cq, CqEntry entry) {
        int rc;
        while ((rc = cq.read(entry)) == EAGAIN) {
            // busy-poll, as the C loop does
        }
        check(rc == 1 ? 0 : rc, "fi_cq_read");
    }

    /** The C side's protocol: write this side's name to {@code <dir>/<side>.addr}, wait up to 30 s for the other. */
    private static byte[] exchangeNames(boolean server, Path dir, byte[] name) throws IOException, InterruptedException {
        Path mine = dir.resolve(server ? "server.addr" : "client.addr");
        Path theirs = dir.resolve(server ? "client.addr" : "server.addr");
        Path tmp = dir.resolve(mine.getFileName() + ".tmp");
        Files.write(tmp, name);
        Files.move(tmp, mine, StandardCopyOption.ATOMIC_MOVE);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!Files.exists(theirs)) {
            if (System.nanoTime() > deadline) {
                throw new IOException("no " + theirs + " within 30 s");
            }
            Thread.sleep(1);
        }
        return Files.readAllBytes(theirs);
    }
}
