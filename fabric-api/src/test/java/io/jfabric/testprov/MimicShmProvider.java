package io.jfabric.testprov;

import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.MrMode;
import io.jfabric.MsgOrder;
import io.jfabric.spi.FabricProvider;
import io.jfabric.spi.InfoMatcher;

import java.util.List;

/** Test-scope stand-in for libfabric 1.17's shm, including smr_getinfo's fast-RMA adjustment. */
public final class MimicShmProvider implements FabricProvider {
    /** The address the mimic reports (libfabric's default "fi_shm://&lt;pid&gt;"). */
    public static volatile String address = "fi_shm://" + ProcessHandle.current().pid();

    @Override
    public String name() {
        return "shm";
    }

    @Override
    public int version() {
        return MimicInfos.PROV_VERSION;
    }

    @Override
    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        int mr = hints != null && hints.domainAttr != null ? hints.domainAttr.mrMode : MrMode.VIRT_ADDR;
        long order = hints != null && hints.txAttr != null ? hints.txAttr.msgOrder : 0;
        boolean fastRma = (mr & MrMode.VIRT_ADDR) != 0 && (order & ~MsgOrder.SAS) == 0;
        List<FabricInfo> out = InfoMatcher.match(List.of(MimicInfos.shm(address)), hints, version);
        if (fastRma) {
            for (FabricInfo i : out) {
                i.domainAttr.mrMode |= MrMode.VIRT_ADDR;
                i.txAttr.msgOrder = MsgOrder.SAS;
                i.epAttr.maxOrderRawSize = 0;
                i.epAttr.maxOrderWarSize = 0;
                i.epAttr.maxOrderWawSize = 0;
            }
        }
        return out;
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        throw new FabricException(Errno.ENOSYS, "test-scope provider: discovery only");
    }
}
