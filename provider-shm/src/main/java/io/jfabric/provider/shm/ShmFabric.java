package io.jfabric.provider.shm;

import io.jfabric.Domain;
import io.jfabric.EqAttr;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.PassiveEndpoint;
import io.jfabric.util.ProgressHook;
import io.jfabric.util.UtilEventQueue;
import io.jfabric.util.UtilFabricObject;

import java.nio.file.Path;

/** The shm fabric ({@code fi_fabric}): the node itself. Opening it sweeps away regions of dead processes. */
final class ShmFabric extends UtilFabricObject implements Fabric {

    private final FabricInfo info;

    ShmFabric(FabricInfo info) {
        super("shm fabric");
        this.info = info.copy();
        RegionCleaner.sweepStale(Path.of(ShmParams.DIRECTORY.get()));
    }

    @Override
    public FabricInfo info() {
        return info;
    }

    @Override
    public Domain openDomain(FabricInfo info) {
        checkOpen("open a domain on");
        acquire();
        try {
            return new ShmDomain(this, info == null ? this.info : info);
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    @Override
    public PassiveEndpoint openPassiveEndpoint(FabricInfo info) {
        throw new FabricException(Errno.ENOSYS, "shm offers FI_EP_RDM only; passive endpoints belong to FI_EP_MSG");
    }

    @Override
    public EventQueue openEq(EqAttr attr) {
        checkOpen("open an EQ on");
        return new UtilEventQueue(attr, ProgressHook.NONE);
    }

    @Override
    protected void doClose() {
    }
}
