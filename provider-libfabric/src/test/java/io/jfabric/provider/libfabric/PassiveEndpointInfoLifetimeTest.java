package io.jfabric.provider.libfabric;

import io.jfabric.AddressFormat;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.PassiveEndpoint;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * libfabric 1.17's sockets provider copies the fi_info given to fi_passive_ep shallowly and reads its
 * attributes again for every CONNREQ. The libfabric provider used to free its native copy of the info right after
 * fi_passive_ep, so later CONNREQs were built from freed memory and fi_freeinfo of the CONNREQ info
 * aborted the JVM with a glibc double free (seen in the conformance suite on libfabric:sockets). The libfabric provider
 * now keeps that info until the passive endpoint is closed; this test connects several times, with the
 * heap churned in between, and checks every CONNREQ's info.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PassiveEndpointInfoLifetimeTest {

    @Test
    void connreqInfosOfAShallowCopyingProviderStayIntact() {
        FabricInfo h = Hints.create().provider("libfabric:sockets").epType(EndpointType.MSG).caps(Caps.MSG)
                .addrFormat(AddressFormat.SOCKADDR_IN).build();
        List<FabricInfo> infos = new LibfabricProvider().getInfo(Fabrics.API_VERSION, "127.0.0.1", "0",
                Fabrics.SOURCE, h);
        Assumptions.assumeFalse(infos.isEmpty(), "not run: native sockets offers no FI_EP_MSG on 127.0.0.1 here");
        FabricInfo info = infos.get(0);
        Fabric fabric = new LibfabricProvider().openFabric(info);
        EventQueue serverEq = fabric.openEq(EqAttr.defaults());
        EventQueue clientEq = fabric.openEq(EqAttr.defaults());
        PassiveEndpoint pep = fabric.openPassiveEndpoint(info);
        pep.bind(serverEq);
        pep.listen();
        Domain cd = fabric.openDomain(info);
        for (int round = 0; round < 4; round++) {
            // reuse the heap the libfabric provider's native info would have lived in
            for (int i = 0; i < 50; i++) {
                new LibfabricProvider().getInfo(Fabrics.API_VERSION, "127.0.0.1", "0", Fabrics.SOURCE, h);
            }
            CompletionQueue ccq = cd.openCq(CqAttr.of(CqFormat.CONTEXT, 16));
            Endpoint client = cd.openEndpoint(info);
            client.bind(clientEq);
            client.bind(ccq, BindFlags.TRANSMIT | BindFlags.RECV);
            client.enable();
            client.connect(pep.getName(), null);
            EqEntry req = new EqEntry();
            long deadline = System.nanoTime() + 10_000_000_000L;
            int rc;
            while ((rc = serverEq.read(req, 0)) == -Errno.EAGAIN && System.nanoTime() < deadline) {
                clientEq.read(new EqEntry(), io.jfabric.OpFlags.PEEK);
            }
            assertEquals(EqEvent.CONNREQ, rc, "round " + round + ": a CONNREQ");
            assertSame(pep, req.fid);
            assertNotNull(req.info, "round " + round + ": the CONNREQ carries an info");
            assertEquals("libfabric:sockets", req.info.providerName());
            assertEquals(EndpointType.MSG, req.info.epAttr.type, "round " + round + ": the info is intact");
            pep.reject(req.info.handle, null);
            long until = System.nanoTime() + 2_000_000_000L;
            while (clientEq.read(new EqEntry(), 0) == -Errno.EAGAIN && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            client.close();
            ccq.close();
        }
        cd.close();
        pep.close();
        clientEq.close();
        serverEq.close();
        fabric.close();
    }
}
