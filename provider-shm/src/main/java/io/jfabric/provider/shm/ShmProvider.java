package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Progress;
import io.jfabric.spi.FabricProvider;
import io.jfabric.spi.InfoMatcher;
import io.jfabric.spi.NativeAccess;
import io.jfabric.spi.ProviderParameter;
import io.jfabric.provider.shm.ffi.Futex;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code shm} provider (libfabric's fi_shm(7)): FI_EP_RDM endpoints between processes of one
 * user on one machine. Each endpoint owns a 0600 POSIX shared-memory region holding its receive
 * ring; senders write commands straight into the receiver's ring, small messages inline, medium ones
 * through bounce slots, large ones and RMA as a single copy with process_vm_readv/writev.
 *
 * <p>Differences from libfabric's shm: Java-to-Java only (its own region layout); addresses are
 * {@code fi_shm://jfabric-shm-<pid>-<start>-<n>}. As libfabric's, hints with no threading level get
 * FI_THREAD_SAFE (one domain lock on the data path); FI_THREAD_DOMAIN in the hints takes none.
 */
public final class ShmProvider implements FabricProvider {

    @Override
    public String name() {
        return "shm";
    }

    @Override
    public int version() {
        return ShmInfos.VERSION;
    }

    @Override
    public String unavailableReason() {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            return "shm needs Linux (POSIX shared memory under /dev/shm, futex, process_vm_readv)";
        }
        // before Futex's first use: its class initialiser binds downcalls, which a denied module may not
        String denied = NativeAccess.deniedReason(ShmProvider.class.getModule(), () -> MemorySegment.NULL.reinterpret(0));
        if (denied != null) {
            return denied;
        }
        if (!Futex.supported()) {
            return "shm has no futex binding for architecture " + System.getProperty("os.arch");
        }
        Path dir = Path.of(ShmParams.DIRECTORY.get());
        if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
            return "shm region directory " + dir + " is missing or not writable (set FI_SHM_DIR)";
        }
        return null;
    }

    @Override
    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        FabricInfo template = ShmInfos.template(ShmParams.INLINE_SIZE.get());
        // offer auto progress so hints asking for it match; default to manual below
        template.domainAttr.controlProgress = Progress.AUTO;
        template.domainAttr.dataProgress = Progress.AUTO;
        ShmInfos.offerSourceErr(template, hints);
        List<FabricInfo> out = InfoMatcher.match(List.of(template), hints, version);
        boolean askedData = hints != null && hints.domainAttr != null && hints.domainAttr.dataProgress != null
                && hints.domainAttr.dataProgress != Progress.UNSPEC;
        boolean askedControl = hints != null && hints.domainAttr != null && hints.domainAttr.controlProgress != null
                && hints.domainAttr.controlProgress != Progress.UNSPEC;
        for (FabricInfo i : out) {
            if (!askedData) {
                i.domainAttr.dataProgress = Progress.MANUAL;
            }
            if (!askedControl) {
                i.domainAttr.controlProgress = Progress.MANUAL;
            }
        }
        return out;
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        String why = unavailableReason();
        if (why != null) {
            throw new FabricException(Errno.ENODEV, why);
        }
        return new ShmFabric(info);
    }

    @Override
    public List<ProviderParameter> parameters() {
        return ShmParams.PARAMS.parameters();
    }
}
