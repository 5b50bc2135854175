package io.jfabric.conformance;

import io.jfabric.CqEntry;
import io.jfabric.Endpoint;
import io.jfabric.Fabrics;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fabtests multi_ep (several endpoints of one domain sharing its CQs and AV) and rdm_multi_client (several
 * clients, each with its own fabric and domain, against one server endpoint that answers each).
 */
@Timeout(60)
class MultiEndpointTest {
    static final long T = 10_000;
    static final int ENDPOINTS = 4;
    static final int CLIENTS = 4;
    static final int PER_CLIENT = 8;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void severalEndpointsOfOneDomainShareItsCqsAndAv(FabricCase c) {
        Gate.require(c.isConnectionless(), c, "is FI_EP_MSG: multi_ep's endpoints address their peer through a "
                + "shared AV, which only connectionless endpoints have");
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        List<Endpoint> eps = new ArrayList<>();
        List<Long> back = new ArrayList<>();
        for (int i = 0; i < ENDPOINTS; i++) {
            Endpoint ep = dump.track(p.a.domain.openEndpoint(p.a.info.copy()));
            ep.bind(p.a.av);
            ep.bind(p.a.txCq, io.jfabric.BindFlags.TRANSMIT);
            ep.bind(p.a.rxCq, io.jfabric.BindFlags.RECV);
            ep.enable();
            eps.add(ep);
            back.add(p.b.av.insert(ep.getName()));
        }
        try (Arena arena = Arena.ofShared()) {
            for (int i = 0; i < ENDPOINTS; i++) {
                Endpoint ep = eps.get(i);
                MemorySegment tx = Mem.alloc(arena, 100);
                MemorySegment rx = Mem.alloc(arena, 100);
                MemorySegment brx = Mem.alloc(arena, 100);
                Mem.fill(tx, 400 + i);
                String epCtx = "ep" + i;
                p.poller.post("b recv", () -> p.b.ep.recv(brx, p.b.desc(brx), Fabrics.ADDR_UNSPEC, "b-rx"));
                p.poller.post(epCtx + " recv", () -> ep.recv(rx, p.a.desc(rx), Fabrics.ADDR_UNSPEC, epCtx));
                p.poller.post(epCtx + " send", () -> ep.send(tx, p.a.desc(tx), p.a.peer, epCtx + "-tx"));
                assertEquals(epCtx + "-tx", p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, epCtx + " send").context);
                p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "b receives from " + epCtx);
                assertEquals(-1, Mem.mismatch(brx, 400 + i), "payload from " + epCtx);
                long to = back.get(i);
                Mem.fill(tx, 500 + i);
                p.poller.post("b send to " + epCtx, () -> p.b.ep.send(tx, p.b.desc(tx), to, "b-tx"));
                CqEntry re = p.poller.expectSuccess(p.a.rxCq, new CqEntry(), T, epCtx + " receives b's answer");
                assertEquals(epCtx, re.context, "the answer reaches the endpoint it was addressed to, on the shared CQ");
                assertEquals(-1, Mem.mismatch(rx, 500 + i));
                p.poller.expectSuccess(p.b.txCq, new CqEntry(), T, "b send");
            }
        }
    }

    @ForEachFabric
    void severalClientsAgainstOneServerEachGetTheirAnswers(FabricCase c) {
        Gate.require(c.isConnectionless(), c, "is FI_EP_MSG: rdm_multi_client serves many peers from one endpoint "
                + "through its AV; an FI_EP_MSG endpoint has exactly one peer");
        Gate.messaging(c);
        dump.caseUnderTest(c);
        Poller poller = new Poller();
        EndpointPair.Options o = new EndpointPair.Options();
        Side server = new Side("server", c, dump);
        EndpointPair.openSide(server, c, dump, o, c.freshInfo(), poller);
        Side[] clients = new Side[CLIENTS];
        long[] serverAddrOf = new long[CLIENTS];
        for (int i = 0; i < CLIENTS; i++) {
            clients[i] = new Side("client" + i, c, dump);
            EndpointPair.openSide(clients[i], c, dump, o, c.freshInfo(), poller);
            clients[i].peer = clients[i].av.insert(server.ep.getName());
            serverAddrOf[i] = server.av.insert(clients[i].ep.getName());
        }
        int total = CLIENTS * PER_CLIENT;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] srx = new MemorySegment[total];
            for (int k = 0; k < total; k++) {
                MemorySegment r = Mem.alloc(arena, 64);
                srx[k] = r;
                poller.post("server recv", () -> server.ep.recv(r, server.desc(r), Fabrics.ADDR_UNSPEC, r));
            }
            MemorySegment[][] crx = new MemorySegment[CLIENTS][PER_CLIENT];
            for (int i = 0; i < CLIENTS; i++) {
                Side cl = clients[i];
                for (int j = 0; j < PER_CLIENT; j++) {
                    MemorySegment r = Mem.alloc(arena, 64);
                    crx[i][j] = r;
                    poller.post("client recv", () -> cl.ep.recv(r, cl.desc(r), Fabrics.ADDR_UNSPEC, r));
                }
            }
            // every client sends its messages interleaved with the others: (client, seq) in the first 16 bytes
            for (int j = 0; j < PER_CLIENT; j++) {
                for (int i = 0; i < CLIENTS; i++) {
                    Side cl = clients[i];
                    MemorySegment tx = Mem.alloc(arena, 64);
                    Mem.fill(tx.asSlice(16, 48), 600 + i);
                    tx.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                    tx.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, j);
                    poller.post("client send", () -> cl.ep.send(tx, cl.desc(tx), cl.peer, "c-tx"));
                }
            }
            int[] nextSeq = new int[CLIENTS];
            Set<Long> seen = new HashSet<>();
            for (int k = 0; k < total; k++) {
                CqEntry re = poller.expectSuccess(server.rxCq, new CqEntry(), T, "server receive " + k);
                MemorySegment r = Mem.postedBuffer(re);
                int client = (int) r.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                int seq = (int) r.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
                assertTrue(client >= 0 && client < CLIENTS, "client id " + client);
                assertEquals(nextSeq[client]++, seq, "messages of client " + client + " arrive in order");
                assertTrue(seen.add((long) client << 32 | seq), "duplicate message " + client + "/" + seq);
                assertEquals(-1, Mem.mismatch(r.asSlice(16, 48), 600 + client), "payload of " + client + "/" + seq);
                MemorySegment ans = Mem.alloc(arena, 64);
                Mem.fill(ans.asSlice(8, 56), 700 + client);
                ans.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
                long to = serverAddrOf[client];
                poller.post("server answer", () -> server.ep.send(ans, server.desc(ans), to, "s-tx"));
            }
            for (int i = 0; i < CLIENTS; i++) {
                for (int j = 0; j < PER_CLIENT; j++) {
                    CqEntry re = poller.expectSuccess(clients[i].rxCq, new CqEntry(), T, "client " + i + " answer " + j);
                    assertEquals(crx[i][j], re.context, "answers reach client " + i + " in order");
                    assertEquals(j, crx[i][j].get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
                    assertEquals(-1, Mem.mismatch(crx[i][j].asSlice(8, 56), 700 + i), "answer payload");
                }
            }
        }
    }
}
