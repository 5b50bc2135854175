package io.jfabric.provider.verbs;

import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.PassiveEndpoint;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * A port going down under a connection: takes the server device's network interface down (inside the
 * VM only) and checks that the device's async event reaches the endpoint's EQ as ENETDOWN.
 */
final class PortDownCheck {
    private PortDownCheck() {
    }

    static void run(String clientIp, String serverIp, String serverNetdev, BiConsumer<Boolean, String> check)
            throws Exception {
        FabricInfo cInfo = TwoProcessCheck.infoFor(clientIp);
        FabricInfo sInfo = TwoProcessCheck.infoFor(serverIp);
        Fabric fabric = new VerbsProvider().openFabric(cInfo);
        EventQueue eq = fabric.openEq(EqAttr.defaults());
        Domain cDom = fabric.openDomain(cInfo);
        Domain sDom = fabric.openDomain(sInfo);
        CompletionQueue cCq = cDom.openCq(CqAttr.of(CqFormat.CONTEXT, 16));
        CompletionQueue sCq = sDom.openCq(CqAttr.of(CqFormat.CONTEXT, 16));
        PassiveEndpoint pep = fabric.openPassiveEndpoint(sInfo);
        pep.bind(eq);
        pep.listen();
        Endpoint c = cDom.openEndpoint(cInfo);
        c.bind(cCq, BindFlags.TRANSMIT | BindFlags.RECV);
        c.bind(eq);
        c.connect(pep.getName(), null);
        EqEntry ev = new EqEntry();
        EqErrEntry err = new EqErrEntry();
        if (eq.sread(ev, 20_000, 0) != EqEvent.CONNREQ) {
            check.accept(false, "port-down check: CONNREQ");
            return;
        }
        Endpoint s = sDom.openEndpoint(ev.info);
        s.bind(sCq, BindFlags.TRANSMIT | BindFlags.RECV);
        s.bind(eq);
        s.accept(null);
        int up = 0;
        for (int i = 0; i < 2; i++) {
            up += eq.sread(ev, 20_000, 0) == EqEvent.CONNECTED ? 1 : 0;
        }
        check.accept(up == 2, "port-down check: connected");
        boolean seen = false;
        try {
            ip("link", "set", serverNetdev, "down");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!seen && System.nanoTime() < deadline) {
                int rc = eq.sread(ev, 1000, 0);
                if (rc == -Errno.EAVAIL) {
                    eq.readError(err, 0);
                    seen = err.fid == s && err.err == Errno.ENETDOWN;
                }
            }
        } finally {
            ip("link", "set", serverNetdev, "up");
        }
        check.accept(seen, "port down on " + serverNetdev + " reaches the server endpoint's EQ as ENETDOWN ("
                + err + (err.errData == null ? "" : ", " + new String(err.errData, StandardCharsets.UTF_8)) + ")");
        c.close();
        s.close();
        pep.close();
        cCq.close();
        sCq.close();
        cDom.close();
        sDom.close();
        eq.close();
        fabric.close();
    }

    private static void ip(String... args) throws Exception {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "ip";
        System.arraycopy(args, 0, cmd, 1, args.length);
        Process p = new ProcessBuilder(cmd).inheritIO().start();
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed");
        }
    }
}
