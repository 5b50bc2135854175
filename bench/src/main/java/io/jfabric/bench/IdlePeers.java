package io.jfabric.bench;

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
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The 64 B round trip between a server RDM endpoint and one active client while the server also holds
 * connections to {@code peers} idle clients, each of which sent it one message first: what a server with many
 * quiet clients pays per message for them. Everything runs in one thread of one process, every endpoint in one
 * domain, so the Java provider and {@code libfabric:<same>} are measured by the same loop.
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp benchmarks.jar io.jfabric.bench.IdlePeers 'tcp;ofi_rxm' 128 50000</pre>
 * prints {@code <provider> <peers> <mean round trip in microseconds>}.
 */
public final class IdlePeers {
    private static final int WARMUP = 20_000;

    private IdlePeers() {
    }

    public static void main(String[] args) {
        String provider = args[0];
        int peers = Integer.parseInt(args[1]);
        int iterations = Integer.parseInt(args[2]);
        FabricInfo hints = Hints.create().provider(provider).caps(Caps.MSG).epType(EndpointType.RDM).build();
        FabricInfo info = Fabrics.getInfo(hints).getFirst();
        try (Arena arena = Arena.ofConfined();
                Fabric fabric = Fabrics.openFabric(info);
                Domain domain = fabric.openDomain(info);
                AddressVector av = domain.openAv(AvAttr.of(AvType.TABLE))) {
            List<Endpoint> eps = new ArrayList<>();
            List<CompletionQueue> cqs = new ArrayList<>();
            // 0: the server, 1: the active client, 2..: the idle ones
            for (int i = 0; i < peers + 2; i++) {
                CompletionQueue cq = domain.openCq(CqAttr.of(CqFormat.MSG, 256));
                Endpoint ep = domain.openEndpoint(info);
                ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
                ep.bind(av);
                ep.enable();
                eps.add(ep);
                cqs.add(cq);
            }
            long server = av.insert(eps.get(0).getName());
            long active = av.insert(eps.get(1).getName());
            MemorySegment rx = arena.allocate(64);
            MemorySegment tx = arena.allocate(64);
            Pair p = new Pair(eps.get(0), cqs.get(0), rx, tx);
            for (int i = 1; i < eps.size(); i++) {
                p.hello(eps.get(i), cqs.get(i), server);
            }
            p.roundTrips(eps.get(1), cqs.get(1), server, active, WARMUP);
            long start = System.nanoTime();
            p.roundTrips(eps.get(1), cqs.get(1), server, active, iterations);
            double micros = (System.nanoTime() - start) / 1000.0 / iterations;
            System.out.printf("%s %d %.2f%n", provider, peers, micros);
            for (int i = eps.size() - 1; i >= 0; i--) {
                eps.get(i).close();
                cqs.get(i).close();
            }
        }
    }

    /** The server side's endpoint and buffers, and the polling both sides share (one thread drives both). */
    private static final class Pair {
        final Endpoint srv;
        final CompletionQueue scq;
        final MemorySegment rx;
        final MemorySegment tx;
        final CqEntry[] e = CqEntry.array(16);

        Pair(Endpoint srv, CompletionQueue scq, MemorySegment rx, MemorySegment tx) {
            this.srv = srv;
            this.scq = scq;
            this.rx = rx;
            this.tx = tx;
        }

        /** One message from {@code cli} to the server, which opens their connection. */
        void hello(Endpoint cli, CompletionQueue ccq, long server) {
            check(srv.recv(rx, null, Fabrics.ADDR_UNSPEC, "r"));
            while (cli.send(tx, null, server, "s") == -Errno.EAGAIN) {
                poll(ccq);
                poll(scq);
            }
            int got = 0;
            int sent = 0;
            while (got < 1 || sent < 1) {
                got += poll(scq);
                sent += poll(ccq);
            }
        }

        void roundTrips(Endpoint cli, CompletionQueue ccq, long server, long client, int n) {
            for (int i = 0; i < n; i++) {
                check(srv.recv(rx, null, Fabrics.ADDR_UNSPEC, "r"));
                check(cli.recv(rx, null, Fabrics.ADDR_UNSPEC, "r"));
                while (cli.send(tx, null, server, "s") == -Errno.EAGAIN) {
                    poll(ccq);
                }
                int c = 0;
                int s = 0;
                while (s < 1) {
                    s += poll(scq);
                    c += poll(ccq);
                }
                while (srv.send(tx, null, client, "s") == -Errno.EAGAIN) {
                    s += poll(scq);
                }
                while (c < 2 || s < 2) {
                    c += poll(ccq);
                    s += poll(scq);
                }
            }
        }

        private int poll(CompletionQueue cq) {
            int n = cq.read(e, e.length);
            if (n == -Errno.EAGAIN) {
                return 0;
            }
            if (n < 0) {
                throw new FabricException(-n, "CQ read failed");
            }
            return n;
        }
    }

    private static void check(int rc) {
        if (rc < 0) {
            throw new FabricException(-rc, "post failed");
        }
    }
}
