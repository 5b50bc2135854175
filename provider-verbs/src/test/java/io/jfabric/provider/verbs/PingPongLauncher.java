package io.jfabric.provider.verbs;

import io.jfabric.EqAttr;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.PassiveEndpoint;

import java.util.List;

/**
 * Runs {@code jfabric pingpong} (io.jfabric.cli.Main) after warming this JVM up: discovery and the
 * verbs control path. Inside the emulated VM a cold JVM needs longer than fi_pingpong's 5 s
 * control-channel wait to discover devices and open a fabric, and the server does that work only once
 * the client has connected. Used by scripts/verbs-in-vm-guest.sh only.
 */
public final class PingPongLauncher {
    private PingPongLauncher() {
    }

    public static void main(String[] args) throws Throwable {
        List<FabricInfo> infos = Fabrics.getInfo(null);
        for (FabricInfo i : infos) {
            if ("verbs".equals(i.providerName())) {
                Fabric f = Fabrics.openFabric(i);
                EventQueue eq = f.openEq(EqAttr.defaults());
                PassiveEndpoint pep = f.openPassiveEndpoint(i);
                pep.bind(eq);
                pep.listen();
                eq.read(new io.jfabric.EqEntry(), 0);
                pep.close();
                eq.close();
                f.close();
                break;
            }
        }
        Class.forName("io.jfabric.cli.Main").getMethod("main", String[].class).invoke(null, (Object) args);
    }
}
