package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.*;

import io.jfabric.BindFlags;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Endpoint;
import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.FabricInfo;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.PassiveEndpoint;
import io.jfabric.Progress;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(60)
class DataPathTest {
    private final Arena arena = Arena.ofShared();
    private Loopback pair;

    @AfterEach
    void tearDown() {
        if (pair != null) {
            pair.close();
        }
        arena.close();
    }

    private Loopback pair() {
        pair = new Loopback(false, Progress.MANUAL, null, null);
        return pair;
    }

    private MemorySegment random(long n, long seed) {
        MemorySegment s = arena.allocate(Math.max(n, 1), 64).asSlice(0, n);
        Random r = new Random(seed);
        for (long i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
        return s;
    }

    /** Drives both sides until {@code side} has a completion. */
    private static CqEntry complete(Loopback.Side side) {
        return side.waitCq(20_000);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 127, 128, 129, 4096, 9000, 65536, 1 << 20, 16 << 20})
    void sendRecvDeliversEveryByte(int size) {
        Loopback p = pair();
        MemorySegment tx = random(size, size);
        MemorySegment rx = arena.allocate(Math.max(size, 1), 64).asSlice(0, size);
        assertEquals(0, p.server.ep.recv(rx, null, 0, "rx"));
        assertEquals(0, p.client.ep.send(tx, null, 0, "tx"));
        CqEntry r = complete(p.server);
        assertEquals("rx", r.context);
        assertEquals(size, r.len);
        assertEquals(OpFlags.RECV | OpFlags.MSG, r.flags & (OpFlags.RECV | OpFlags.MSG | OpFlags.SEND));
        assertEquals(-1, rx.mismatch(tx), "payload differs");
        CqEntry t = complete(p.client);
        assertEquals("tx", t.context);
        assertEquals(OpFlags.SEND | OpFlags.MSG, t.flags);
    }

    @Test
    void sendvScattersIntoRecvvAcrossUnevenIovs() {
        Loopback p = pair();
        MemorySegment whole = random(10_000, 3);
        MemorySegment[] tx = {whole.asSlice(0, 1), whole.asSlice(1, 5000), whole.asSlice(5001, 0), whole.asSlice(5001, 4999)};
        MemorySegment rxWhole = arena.allocate(10_000);
        MemorySegment[] rx = {rxWhole.asSlice(0, 7), rxWhole.asSlice(7, 3000), rxWhole.asSlice(3007, 6993)};
        assertEquals(0, p.server.ep.recvv(rx, null, 3, 0, "rv"));
        assertEquals(0, p.client.ep.sendv(tx, null, 4, 0, "sv"));
        assertEquals(10_000, complete(p.server).len);
        assertEquals(-1, rxWhole.mismatch(whole));
        assertEquals("sv", complete(p.client).context);
        assertEquals(-Errno.EINVAL, p.client.ep.sendv(new MemorySegment[5], null, 5, 0, null));
    }

    @Test
    void senddataCarriesRemoteCqData() {
        Loopback p = pair();
        MemorySegment rx = arena.allocate(64);
        assertEquals(0, p.server.ep.recv(rx, null, 0, "r"));
        assertEquals(0, p.client.ep.senddata(random(10, 1), null, 0x0123456789abcdefL, 0, "s"));
        CqEntry e = complete(p.server);
        assertEquals(0x0123456789abcdefL, e.data);
        assertTrue((e.flags & OpFlags.REMOTE_CQ_DATA) != 0);
        assertEquals(10, e.len);
    }

    @Test
    void injectWritesNoSendCompletionAndIsLimitedToInjectSize() {
        Loopback p = pair();
        MemorySegment tx = random(100, 9);
        MemorySegment rx = arena.allocate(128);
        assertEquals(0, p.server.ep.recv(rx, null, 0, "r"));
        assertEquals(0, p.client.ep.inject(tx, 0));
        tx.fill((byte) 0); // the buffer is ours again at once
        assertEquals(100, complete(p.server).len);
        assertEquals(-1, rx.asSlice(0, 100).mismatch(random(100, 9)));
        CqEntry[] a = {new CqEntry()};
        assertEquals(-Errno.EAGAIN, p.client.cq.read(a, 1), "inject must not write a completion");
        assertEquals(-Errno.EMSGSIZE, p.client.ep.inject(arena.allocate(129), 0));
        assertEquals(0, p.client.ep.injectdata(arena.allocate(8), 77, 0));
        assertEquals(0, p.server.ep.recv(rx, null, 0, "r2"));
        assertEquals(77, complete(p.server).data);
    }

    @Test
    void truncationReportsEtruncWithOlenAndTheConnectionGoesOn() {
        Loopback p = pair();
        MemorySegment tx = random(1000, 5);
        MemorySegment small = arena.allocate(100);
        MemorySegment big = arena.allocate(1000);
        assertEquals(0, p.server.ep.recv(small, null, 0, "small"));
        assertEquals(0, p.server.ep.recv(big, null, 0, "big"));
        assertEquals(0, p.client.ep.send(tx, null, 0, "t1"));
        assertEquals(0, p.client.ep.send(tx, null, 0, "t2"));
        CqErrEntry err = p.server.waitCqError(10_000);
        assertEquals(Errno.ETRUNC, err.err);
        assertEquals("small", err.context);
        assertEquals(100, err.len);
        assertEquals(900, err.olen);
        assertEquals(-1, small.mismatch(tx.asSlice(0, 100)));
        CqEntry ok = complete(p.server);
        assertEquals("big", ok.context);
        assertEquals(-1, big.mismatch(tx));
    }

    @Test
    void cancelCompletesThePostedReceiveWithEcanceled() {
        Loopback p = pair();
        MemorySegment rx = arena.allocate(64);
        assertEquals(0, p.server.ep.recv(rx, null, 0, "doomed"));
        assertEquals(0, p.server.ep.recv(rx, null, 0, "kept"));
        assertEquals(0, p.server.ep.cancel("doomed"));
        CqErrEntry err = p.server.waitCqError(5000);
        assertEquals(Errno.ECANCELED, err.err);
        assertEquals("doomed", err.context);
        assertEquals(0, p.client.ep.send(random(10, 2), null, 0, "s"));
        assertEquals("kept", complete(p.server).context);
    }

    @Test
    void deliveryCompleteWaitsForTheReceiversAck() {
        Loopback p = pair();
        Msg m = new Msg().set(random(64, 4), null, 0, "dc");
        assertEquals(0, p.client.ep.sendmsg(m, OpFlags.DELIVERY_COMPLETE));
        assertEquals(0, p.client.ep.send(random(64, 4), null, 0, "plain"));
        // the server has no receive posted: the plain send completes (written), the ACKed one cannot
        CqEntry[] a = {new CqEntry()};
        long deadline = System.currentTimeMillis() + 300;
        boolean sawPlain = false;
        while (System.currentTimeMillis() < deadline) {
            p.server.cq.read(a, 0);
            if (p.client.cq.read(a, 1) == 1) {
                assertNotEquals("dc", a[0].context, "delivery-complete send finished before delivery");
                sawPlain |= "plain".equals(a[0].context);
            }
        }
        assertTrue(sawPlain);
        MemorySegment rx = arena.allocate(64);
        assertEquals(0, p.server.ep.recv(rx, null, 0, "r"));
        assertEquals("r", complete(p.server).context);
        assertEquals("dc", complete(p.client).context);
        m.context = "tc";
        assertEquals(0, p.server.ep.recv(rx, null, 0, "for-plain"));
        assertEquals("for-plain", complete(p.server).context);
        assertEquals(0, p.server.ep.recv(rx, null, 0, "r2"));
        assertEquals(0, p.client.ep.sendmsg(m, OpFlags.TRANSMIT_COMPLETE));
        assertEquals("r2", complete(p.server).context);
        assertEquals("tc", complete(p.client).context);
    }

    @Test
    void selectiveCompletionAndCountersCountEverything() {
        FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
        Loopback.Side server = Loopback.open(info);
        Loopback.Side client = Loopback.open(info);
        server.partner = client;
        client.partner = server;
        PassiveEndpoint pep = server.fabric.openPassiveEndpoint(info);
        Counter txc = client.domain.openCounter(new CounterAttr());
        Counter rxc = server.domain.openCounter(new CounterAttr());
        try {
            pep.bind(server.eq);
            pep.listen();
            client.ep = client.domain.openEndpoint(info);
            client.ep.bind(client.eq);
            client.ep.bind(client.cq, BindFlags.TRANSMIT | BindFlags.RECV | BindFlags.SELECTIVE_COMPLETION);
            client.ep.bind(txc, BindFlags.TRANSMIT);
            client.ep.connect(pep.getName(), null);
            EqEntry req = server.waitEq(EqEvent.CONNREQ, 5000);
            server.ep = server.domain.openEndpoint(req.info);
            server.ep.bind(server.eq);
            server.ep.bind(server.cq, BindFlags.TRANSMIT | BindFlags.RECV);
            server.ep.bind(rxc, BindFlags.RECV);
            server.ep.accept(null);
            client.waitEq(EqEvent.CONNECTED, 5000);
            server.waitEq(EqEvent.CONNECTED, 5000);

            MemorySegment rx = arena.allocate(64);
            for (int i = 0; i < 3; i++) {
                assertEquals(0, server.ep.recv(rx, null, 0, "r" + i));
            }
            assertEquals(0, client.ep.send(random(8, 1), null, 0, "silent"));
            Msg m = new Msg().set(random(8, 2), null, 0, "loud");
            assertEquals(0, client.ep.sendmsg(m, OpFlags.COMPLETION));
            assertEquals(0, client.ep.send(random(8, 3), null, 0, "silent2"));
            for (int i = 0; i < 3; i++) {
                assertEquals("r" + i, server.waitCq(5000).context);
            }
            assertEquals("loud", client.waitCq(5000).context);
            long deadline = System.currentTimeMillis() + 5000;
            while (txc.read() < 3 && System.currentTimeMillis() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(3, txc.read());
            assertEquals(3, rxc.read());
            assertEquals(0, txc.readError());
            CqEntry[] a = {new CqEntry()};
            assertEquals(-Errno.EAGAIN, client.cq.read(a, 1), "selective: silent sends wrote completions");
        } finally {
            client.ep.close();
            txc.close();
            Loopback.closeSide(client);
            server.ep.close();
            rxc.close();
            pep.close();
            Loopback.closeSide(server);
            client.fabric.close();
            server.fabric.close();
        }
    }

    @Test
    void aRefusedCounterBindChangesNothing() {
        FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
        Loopback.Side side = Loopback.open(info);
        Counter first = side.domain.openCounter(new CounterAttr());
        Counter second = side.domain.openCounter(new CounterAttr());
        Endpoint ep = side.domain.openEndpoint(info);
        try {
            ep.bind(first, BindFlags.RECV);
            io.jfabric.FabricException e = assertThrows(io.jfabric.FabricException.class,
                    () -> ep.bind(second, BindFlags.TRANSMIT | BindFlags.RECV));
            assertEquals(Errno.EINVAL, e.errno());
            second.close(); // FI_SEND was refused with FI_RECV, not bound first: nothing holds the counter
            assertThrows(io.jfabric.FabricException.class, first::close, "the first stays bound");
        } finally {
            ep.close();
            first.close();
            Loopback.closeSide(side);
            side.fabric.close();
        }
    }

    @Test
    void tenThousandMessagesArriveInOrder() {
        Loopback p = pair();
        int n = 10_000;
        MemorySegment tx = arena.allocate(8);
        MemorySegment[] rx = new MemorySegment[64];
        for (int i = 0; i < rx.length; i++) {
            rx[i] = arena.allocate(8);
            assertEquals(0, p.server.ep.recv(rx[i], null, 0, i));
        }
        int sent = 0;
        int received = 0;
        CqEntry[] a = CqEntry.array(32);
        long deadline = System.currentTimeMillis() + 40_000;
        while (received < n && System.currentTimeMillis() < deadline) {
            while (sent < n) {
                tx.set(ValueLayout.JAVA_LONG, 0, sent);
                int rc = p.client.ep.inject(tx, 0);
                if (rc == -Errno.EAGAIN) {
                    break;
                }
                assertEquals(0, rc);
                sent++;
            }
            p.client.cq.read(a, 0);
            int k = p.server.cq.read(a, a.length);
            for (int j = 0; j < k; j++) {
                int slot = (Integer) a[j].context;
                assertEquals(received, rx[slot].get(ValueLayout.JAVA_LONG, 0), "message out of order");
                received++;
                assertEquals(0, p.server.ep.recv(rx[slot], null, 0, slot));
            }
        }
        assertEquals(n, received);
    }

    @Test
    void withoutReceivesTheSenderIsPushedBackThenEverythingArrives() {
        Loopback p = pair();
        int count = 64;
        int size = 1 << 20;
        MemorySegment tx = random(size, 8);
        int posted = 0;
        CqEntry[] a = CqEntry.array(16);
        int done = 0;
        long until = System.currentTimeMillis() + 500;
        while (System.currentTimeMillis() < until) {
            if (posted < count) {
                int rc = p.client.ep.send(tx, null, 0, posted);
                if (rc == 0) {
                    posted++;
                } else {
                    assertEquals(-Errno.EAGAIN, rc);
                }
            }
            int k = p.client.cq.read(a, a.length);
            if (k > 0) {
                done += k;
            }
            p.server.cq.read(a, 0);
        }
        assertEquals(count, posted);
        assertTrue(done < count, "all " + count + " MiB were accepted with no receive posted: unbounded buffering");
        MemorySegment rx = arena.allocate(size);
        for (int i = 0; i < count; i++) {
            assertEquals(0, p.server.ep.recv(rx, null, 0, i));
            CqEntry e = p.server.waitCq(20_000);
            assertEquals(i, e.context);
            assertEquals(-1, rx.mismatch(tx));
        }
        while (done < count) {
            p.client.waitCq(20_000);
            done++;
        }
    }

    @Test
    void multipleThreadsShareAThreadSafeEndpoint() throws Exception {
        Loopback p = pair();
        int threads = 4;
        int perThread = 500;
        MemorySegment[] rx = new MemorySegment[64];
        for (int i = 0; i < rx.length; i++) {
            rx[i] = arena.allocate(16);
            assertEquals(0, p.server.ep.recv(rx[i], null, 0, i));
        }
        Thread[] ts = new Thread[threads];
        int[] failures = new int[1];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            ts[t] = Thread.ofPlatform().start(() -> {
                MemorySegment b = Arena.ofAuto().allocate(16);
                CqEntry[] c = CqEntry.array(8);
                for (int i = 0; i < perThread; i++) {
                    b.set(ValueLayout.JAVA_INT, 0, id);
                    b.set(ValueLayout.JAVA_INT, 4, i);
                    int rc;
                    while ((rc = p.client.ep.inject(b, 0)) == -Errno.EAGAIN) {
                        p.client.cq.read(c, c.length);
                    }
                    if (rc != 0) {
                        synchronized (failures) {
                            failures[0]++;
                        }
                    }
                }
            });
        }
        int[] next = new int[threads];
        int received = 0;
        CqEntry[] a = CqEntry.array(16);
        long deadline = System.currentTimeMillis() + 30_000;
        while (received < threads * perThread && System.currentTimeMillis() < deadline) {
            int k = p.server.cq.read(a, a.length);
            p.client.cq.read(a, 0);
            for (int j = 0; j < k; j++) {
                int slot = (Integer) a[j].context;
                int id = rx[slot].get(ValueLayout.JAVA_INT, 0);
                assertEquals(next[id], rx[slot].get(ValueLayout.JAVA_INT, 4), "per-thread order broken");
                next[id]++;
                received++;
                assertEquals(0, p.server.ep.recv(rx[slot], null, 0, slot));
            }
        }
        for (Thread t : ts) {
            t.join();
        }
        assertEquals(0, failures[0]);
        assertEquals(threads * perThread, received);
    }

    @Test
    void unusedEndpointKeepsAFormatDataCq() {
        FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
        Loopback.Side s = Loopback.open(info);
        try {
            assertEquals(CqFormat.DATA, s.cq.attr().format);
            Endpoint ep = s.domain.openEndpoint(info);
            s.ep = ep;
            assertThrows(io.jfabric.FabricException.class, ep::enable);
            assertNotNull(CqAttr.of(CqFormat.CONTEXT, 1));
        } finally {
            Loopback.closeSide(s);
            s.fabric.close();
        }
    }
}
