package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfabric.AddressFormat;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.OpFlags;
import io.jfabric.PassiveEndpoint;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * FI_EP_MSG over native tcp on loopback through the libfabric provider: listen, connect with CM data, CONNREQ
 * carrying it, accept with data, CONNECTED on both sides, a message with a counter, shutdown; then a
 * rejected connect whose reject data comes back in the error entry.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionTest {

    private static FabricInfo msgInfo() {
        FabricInfo h = Hints.create().provider("libfabric:tcp").epType(EndpointType.MSG).caps(Caps.MSG)
                .addrFormat(AddressFormat.SOCKADDR_IN).build();
        List<FabricInfo> infos = new LibfabricProvider().getInfo(Fabrics.API_VERSION, "127.0.0.1", "0",
                Fabrics.SOURCE, h);
        assertFalse(infos.isEmpty(), "native tcp offers FI_EP_MSG on 127.0.0.1");
        return infos.get(0);
    }

    private static EqEntry await(EventQueue eq, int event, CompletionQueue... drive) {
        return await(eq, event, null, drive);
    }

    /** Reads {@code eq} until {@code event}, driving progress through the CQs and (peeking) another EQ. */
    private static EqEntry await(EventQueue eq, int event, EventQueue peekEq, CompletionQueue... drive) {
        EqEntry e = new EqEntry();
        EqEntry peeked = new EqEntry();
        long deadline = System.nanoTime() + 10_000_000_000L;
        CqEntry c = new CqEntry();
        while (System.nanoTime() < deadline) {
            int rc = eq.read(e, 0);
            if (rc == event) {
                return e;
            }
            if (rc >= 0) {
                fail("expected " + EqEvent.toString(event) + " but read " + e);
            }
            if (rc == -Errno.EAVAIL) {
                EqErrEntry err = new EqErrEntry();
                eq.readError(err, 0);
                fail("expected " + EqEvent.toString(event) + " but read error " + err);
            }
            for (CompletionQueue cq : drive) {
                cq.read(c);
            }
            if (peekEq != null) {
                peekEq.read(peeked, OpFlags.PEEK);
            }
        }
        return fail("no " + EqEvent.toString(event) + " within 10 s");
    }

    @Test
    void connectAcceptWithDataThenMessageAndShutdown() {
        FabricInfo info = msgInfo();
        try (Arena arena = Arena.ofShared()) {
            Fabric fabric = new LibfabricProvider().openFabric(info);
            EventQueue eq = fabric.openEq(EqAttr.defaults());
            PassiveEndpoint pep = fabric.openPassiveEndpoint(info);
            pep.bind(eq);
            pep.listen();
            byte[] listenAddr = pep.getName();
            assertTrue(pep.cmDataSize() >= 16, "tcp carries CM data");

            Domain cd = fabric.openDomain(info);
            CompletionQueue ccq = cd.openCq(CqAttr.of(CqFormat.DATA, 64));
            Counter sent = cd.openCounter(CounterAttr.defaults());
            Object clientCtx = "client endpoint";
            Endpoint client = cd.openEndpoint(info, clientCtx);
            client.bind(eq);
            client.bind(ccq, BindFlags.TRANSMIT | BindFlags.RECV);
            client.bind(sent, BindFlags.TRANSMIT);
            client.enable();
            client.connect(listenAddr, "hello".getBytes(StandardCharsets.US_ASCII));

            EqEntry req = await(eq, EqEvent.CONNREQ);
            assertSame(pep, req.fid);
            assertArrayEquals("hello".getBytes(StandardCharsets.US_ASCII), req.cmData);
            assertNotNull(req.info);
            assertEquals("libfabric:tcp", req.info.providerName());
            assertNotNull(req.info.handle, "CONNREQ info carries the request handle");

            Domain sd = fabric.openDomain(req.info);
            CompletionQueue scq = sd.openCq(CqAttr.of(CqFormat.DATA, 64));
            Object serverCtx = "server endpoint";
            Endpoint server = sd.openEndpoint(req.info, serverCtx);
            server.bind(eq);
            server.bind(scq, BindFlags.TRANSMIT | BindFlags.RECV);
            server.enable();
            server.accept("welcome".getBytes(StandardCharsets.US_ASCII));

            EqEntry c1 = await(eq, EqEvent.CONNECTED, ccq, scq);
            Object firstFid = c1.fid;
            byte[] firstData = c1.cmData;
            Object firstCtx = c1.context;
            EqEntry c2 = await(eq, EqEvent.CONNECTED, ccq, scq);
            EqEntry clientSide = firstFid == client ? null : c2;
            if (clientSide == null) {
                assertSame(clientCtx, firstCtx);
                assertArrayEquals("welcome".getBytes(StandardCharsets.US_ASCII), firstData);
                assertSame(server, c2.fid);
                assertSame(serverCtx, c2.context);
            } else {
                assertSame(server, firstFid);
                assertSame(serverCtx, firstCtx);
                assertSame(client, c2.fid);
                assertSame(clientCtx, c2.context);
                assertArrayEquals("welcome".getBytes(StandardCharsets.US_ASCII), c2.cmData);
            }
            assertEquals(listenAddr.length, client.getPeer().length);

            MemorySegment out = arena.allocate(256);
            MemorySegment in = arena.allocate(256);
            out.fill((byte) 0x5A);
            assertEquals(0, server.recv(in, null, Fabrics.ADDR_UNSPEC, "srv recv"));
            assertEquals(0, client.senddata(out, null, 0xD00DL, Fabrics.ADDR_UNSPEC, "cli send"));
            CqEntry e = new CqEntry();
            long deadline = System.nanoTime() + 10_000_000_000L;
            boolean gotRecv = false;
            boolean gotSend = false;
            while (!(gotRecv && gotSend) && System.nanoTime() < deadline) {
                if (scq.read(e) == 1) {
                    assertEquals("srv recv", e.context);
                    assertEquals(256, e.len);
                    assertEquals(0xD00DL, e.data);
                    gotRecv = true;
                }
                if (ccq.read(e) == 1) {
                    assertEquals("cli send", e.context);
                    gotSend = true;
                }
            }
            assertTrue(gotRecv && gotSend, "message exchanged");
            assertEquals(-1L, out.mismatch(in));
            assertEquals(1, sent.read(), "the transmit counter counted the send");
            assertEquals(0, sent.readError());

            // the peer gets FI_SHUTDOWN; native tcp also reports one for the local side, in either order
            client.shutdown(0);
            EqEntry down = await(eq, EqEvent.SHUTDOWN, scq, ccq);
            if (down.fid != server) {
                assertSame(client, down.fid);
                down = await(eq, EqEvent.SHUTDOWN, scq, ccq);
            }
            assertSame(server, down.fid);

            // closing a domain with its endpoint still open is refused and loses nothing
            FabricException busy = assertThrows(FabricException.class, sd::close);
            assertEquals(Errno.EBUSY, busy.errno());
            client.close();
            server.close();
            sent.close();
            ccq.close();
            scq.close();
            cd.close();
            sd.close();
            pep.close();
            eq.close();
            fabric.close();
        }
    }

    @Test
    void rejectCarriesItsDataToTheConnector() {
        FabricInfo info = msgInfo();
        Fabric fabric = new LibfabricProvider().openFabric(info);
        EventQueue serverEq = fabric.openEq(EqAttr.defaults());
        EventQueue clientEq = fabric.openEq(EqAttr.defaults());
        PassiveEndpoint pep = fabric.openPassiveEndpoint(info);
        pep.bind(serverEq);
        pep.listen();
        Domain cd = fabric.openDomain(info);
        CompletionQueue ccq = cd.openCq(CqAttr.of(CqFormat.CONTEXT, 16));
        Endpoint client = cd.openEndpoint(info);
        client.bind(clientEq);
        client.bind(ccq, BindFlags.TRANSMIT | BindFlags.RECV);
        client.enable();
        client.connect(pep.getName(), null);

        EqEntry req = await(serverEq, EqEvent.CONNREQ, clientEq);
        pep.reject(req.info.handle, "go away".getBytes(StandardCharsets.US_ASCII));

        EqEntry e = new EqEntry();
        long deadline = System.nanoTime() + 10_000_000_000L;
        int rc;
        while ((rc = clientEq.read(e, 0)) == -Errno.EAGAIN && System.nanoTime() < deadline) {
            serverEq.read(new EqEntry(), 0);
        }
        assertEquals(-Errno.EAVAIL, rc, "a rejected connect is an error event");
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, clientEq.readError(err, 0));
        assertEquals(Errno.ECONNREFUSED, err.err, err.toString());
        assertSame(client, err.fid);
        assertArrayEquals("go away".getBytes(StandardCharsets.US_ASCII), err.errData);

        client.close();
        ccq.close();
        cd.close();
        pep.close();
        clientEq.close();
        serverEq.close();
        fabric.close();
    }
}
