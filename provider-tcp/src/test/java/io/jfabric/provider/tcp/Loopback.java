package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfabric.AddressFormat;
import io.jfabric.BindFlags;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.PassiveEndpoint;
import io.jfabric.Progress;

import java.util.ArrayList;
import java.util.List;

/**
 * A connected pair of tcp endpoints over loopback, for the provider's unit tests: one fabric, domain, EQ
 * and CQ per side, as two separate applications would have.
 */
final class Loopback implements AutoCloseable {
    final Side server;
    final Side client;
    final PassiveEndpoint pep;
    final List<AutoCloseable> toClose = new ArrayList<>();
    byte[] serverGotData;
    byte[] clientGotData;

    static final class Side {
        Fabric fabric;
        Domain domain;
        io.jfabric.EventQueue eq;
        io.jfabric.CompletionQueue cq;
        Endpoint ep;
        /** The other application, driven while this side waits (both run in the test's one thread). */
        Side partner;
        private final EqEntry peek = new EqEntry();

        void pumpPartner() {
            if (partner != null && partner.eq != null) {
                partner.eq.read(peek, io.jfabric.OpFlags.PEEK);
            }
        }

        /** Reads one completion, driving progress, or fails after the timeout. */
        CqEntry waitCq(int timeoutMs) {
            CqEntry e = new CqEntry();
            CqEntry[] a = {e};
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline) {
                pumpPartner();
                int n = cq.sread(a, 1, 20);
                if (n == 1) {
                    return e;
                }
                if (n == -Errno.EAVAIL) {
                    CqErrEntry err = new CqErrEntry();
                    cq.readError(err, 0);
                    fail("unexpected CQ error " + err + " on " + ep);
                }
            }
            fail("no completion within " + timeoutMs + " ms on " + ep);
            return null;
        }

        /** Reads one error completion, or fails. */
        CqErrEntry waitCqError(int timeoutMs) {
            CqEntry[] a = {new CqEntry()};
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline) {
                pumpPartner();
                int n = cq.sread(a, 1, 20);
                if (n == -Errno.EAVAIL) {
                    CqErrEntry err = new CqErrEntry();
                    assertEquals(1, cq.readError(err, 0));
                    return err;
                }
                if (n == 1) {
                    fail("expected an error completion, got " + a[0] + " on " + ep);
                }
            }
            fail("no error completion within " + timeoutMs + " ms on " + ep);
            return null;
        }

        /** Waits for an EQ event (fails on an error entry unless expected). */
        EqEntry waitEq(int event, int timeoutMs) {
            EqEntry e = new EqEntry();
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline) {
                pumpPartner();
                int n = eq.sread(e, 20, 0);
                if (n == event) {
                    return e;
                }
                if (n == -Errno.EAVAIL) {
                    EqErrEntry err = new EqErrEntry();
                    eq.readError(err, 0);
                    fail("unexpected EQ error " + err + " while waiting for " + EqEvent.toString(event));
                }
                if (n >= 0) {
                    fail("unexpected EQ event " + EqEvent.toString(n) + " while waiting for " + EqEvent.toString(event));
                }
            }
            fail("no " + EqEvent.toString(event) + " within " + timeoutMs + " ms; " + ep);
            return null;
        }

        EqErrEntry waitEqError(int timeoutMs) {
            EqEntry e = new EqEntry();
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline) {
                pumpPartner();
                int n = eq.sread(e, 20, 0);
                if (n == -Errno.EAVAIL) {
                    EqErrEntry err = new EqErrEntry();
                    assertEquals(1, eq.readError(err, 0));
                    return err;
                }
                if (n >= 0) {
                    fail("expected an EQ error, got " + e);
                }
            }
            fail("no EQ error within " + timeoutMs + " ms");
            return null;
        }
    }

    static FabricInfo loopbackInfo(boolean ipv6, Progress progress) {
        return loopbackInfo(ipv6, progress, 0);
    }

    static FabricInfo loopbackInfo(boolean ipv6, Progress progress, long caps) {
        FabricInfo hints = FabricInfo.hints();
        hints.caps = caps;
        hints.fabricAttr.provName = "tcp";
        hints.addrFormat = ipv6 ? AddressFormat.SOCKADDR_IN6 : AddressFormat.SOCKADDR_IN;
        hints.domainAttr.dataProgress = progress;
        hints.domainAttr.controlProgress = progress;
        List<FabricInfo> infos = new TcpProvider().getInfo(Fabrics.API_VERSION, ipv6 ? "::1" : "127.0.0.1", "0",
                Fabrics.SOURCE, hints);
        assertNotNull(infos);
        if (infos.isEmpty()) {
            fail("tcp offered no info for " + (ipv6 ? "::1" : "127.0.0.1"));
        }
        return infos.get(0);
    }

    static Side open(FabricInfo info) {
        return open(info, CqFormat.DATA);
    }

    static Side open(FabricInfo info, CqFormat format) {
        Side s = new Side();
        s.fabric = new TcpProvider().openFabric(info);
        s.domain = s.fabric.openDomain(info);
        s.eq = s.fabric.openEq(new EqAttr());
        s.cq = s.domain.openCq(CqAttr.of(format, 128));
        return s;
    }

    /** A side with an enabled endpoint (EQ and CQ bound) that has not connected yet. */
    static Side openEnabled(FabricInfo info) {
        Side s = open(info);
        s.ep = s.domain.openEndpoint(info);
        s.ep.bind(s.eq);
        s.ep.bind(s.cq, BindFlags.TRANSMIT | BindFlags.RECV);
        s.ep.enable();
        return s;
    }

    Loopback(boolean ipv6, Progress progress, byte[] connectData, byte[] acceptData) {
        this(ipv6, progress, connectData, acceptData, CqFormat.DATA);
    }

    Loopback(boolean ipv6, Progress progress, byte[] connectData, byte[] acceptData, CqFormat format) {
        this(loopbackInfo(ipv6, progress, format == CqFormat.TAGGED ? io.jfabric.Caps.MSG | io.jfabric.Caps.TAGGED : 0),
                connectData, acceptData, format);
    }

    Loopback(FabricInfo info, byte[] connectData, byte[] acceptData, CqFormat format) {
        server = open(info, format);
        client = open(info, format);
        server.partner = client;
        client.partner = server;
        pep = server.fabric.openPassiveEndpoint(info);
        pep.bind(server.eq);
        pep.listen();

        client.ep = client.domain.openEndpoint(info);
        client.ep.bind(client.eq);
        client.ep.bind(client.cq, BindFlags.TRANSMIT | BindFlags.RECV);
        client.ep.enable();
        client.ep.connect(pep.getName(), connectData);

        EqEntry req = server.waitEq(EqEvent.CONNREQ, 5000);
        serverGotData = req.cmData;
        server.ep = server.domain.openEndpoint(req.info);
        server.ep.bind(server.eq);
        server.ep.bind(server.cq, BindFlags.TRANSMIT | BindFlags.RECV);
        server.ep.enable();
        server.ep.accept(acceptData);
        server.waitEq(EqEvent.CONNECTED, 5000);
        EqEntry conn = client.waitEq(EqEvent.CONNECTED, 5000);
        clientGotData = conn.cmData;
    }

    static void closeSide(Side s) {
        if (s == null) {
            return;
        }
        for (AutoCloseable c : new AutoCloseable[] {s.ep, s.cq, s.eq, s.domain}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // best effort in tests
            }
        }
    }

    @Override
    public void close() {
        closeSide(client);
        try {
            pep.close();
        } catch (RuntimeException ignored) {
            // best effort
        }
        closeSide(server);
        try {
            client.fabric.close();
            server.fabric.close();
        } catch (RuntimeException ignored) {
            // best effort
        }
    }
}
