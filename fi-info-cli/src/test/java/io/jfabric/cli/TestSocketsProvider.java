package io.jfabric.cli;

import io.jfabric.AddressFormat;
import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.Threading;
import io.jfabric.spi.FabricProvider;
import io.jfabric.spi.InfoMatcher;
import io.jfabric.spi.ProviderParameter;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Test-scope provider for the CLI tests, named "sockets" (a libfabric name no jfabric module uses, and
 * one utilities never layer over unless named) so real providers on the class path don't disturb it.
 */
public final class TestSocketsProvider implements FabricProvider {
    @Override
    public String name() {
        return "sockets";
    }

    @Override
    public int version() {
        return Fabrics.version(117, 0);
    }

    @Override
    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        FabricInfo f = new FabricInfo();
        f.caps = Caps.MSG | Caps.TAGGED | Caps.SEND | Caps.RECV;
        f.txAttr.caps = Caps.MSG | Caps.TAGGED | Caps.SEND;
        f.rxAttr.caps = Caps.MSG | Caps.TAGGED | Caps.RECV;
        f.txAttr.size = 256;
        f.rxAttr.size = 256;
        f.txAttr.injectSize = 64;
        f.addrFormat = AddressFormat.ADDR_STR;
        f.srcAddr = "fi_sockets://test".getBytes(StandardCharsets.US_ASCII);
        f.epAttr.type = EndpointType.RDM;
        f.epAttr.protocol = Protocol.SOCK_TCP;
        f.epAttr.maxMsgSize = 1 << 20;
        f.epAttr.memTagFormat = 0xaaaaaaaaaaaaaaaaL;
        f.domainAttr.name = "sockets-test";
        f.domainAttr.threading = Threading.SAFE;
        f.domainAttr.controlProgress = Progress.AUTO;
        f.domainAttr.dataProgress = Progress.MANUAL;
        f.fabricAttr.name = "sockets-test-fabric";
        return InfoMatcher.match(List.of(f), hints, version);
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        throw new FabricException(Errno.ENOSYS, "test-scope provider: discovery only");
    }

    @Override
    public List<ProviderParameter> parameters() {
        return List.of(new ProviderParameter("sockets", "test_iface", "string", "lo", "interface the test provider names"),
                new ProviderParameter("sockets", "test_size", "size_t", "4096", "a size"));
    }
}
