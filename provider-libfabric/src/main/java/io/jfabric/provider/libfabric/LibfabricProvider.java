package io.jfabric.provider.libfabric;

import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;
import io.jfabric.provider.libfabric.ffi.LibC;
import io.jfabric.provider.libfabric.ffi.generated.fi_info;
import io.jfabric.spi.FabricProvider;
import io.jfabric.spi.NativeAccess;
import io.jfabric.spi.ProviderParameter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The provider named {@code libfabric}: the libfabric provider to the native libfabric library. Its infos are the
 * native {@code fi_getinfo} results, renamed {@code libfabric:<native name>} ({@code libfabric:tcp},
 * {@code libfabric:tcp;ofi_rxm}, {@code libfabric:shm} ...), so they never clash with jfabric's Java
 * providers. Hints are translated to native hints; a provider name in the hints selects native
 * providers by their libfabric: name (a comma list works; names without the {@code libfabric:} prefix
 * belong to Java providers and select nothing here).
 *
 * <p>Matching is libfabric's own: the libfabric provider does not re-filter native results, so they are exactly
 * what a C program would get. A missing libfabric.so or one older than 1.17 is not an error: the
 * provider reports no infos and {@link #unavailableReason()} says why.
 */
public final class LibfabricProvider implements FabricProvider {
    static final String NAME = "libfabric";
    static final int MIN_VERSION = Fabrics.version(1, 17);
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger("libfabric");

    static final ProviderParameter CONTEXT_SLOTS = new ProviderParameter(NAME, "context_slots", "int", "16384",
            "Native fi_context2 slots per domain, i.e. operations that may be outstanding at once across its "
                    + "endpoints; posting beyond it returns -FI_EAGAIN");
    static final ProviderParameter LIBRARY = new ProviderParameter(NAME, "path", "string", "libfabric.so.1",
            "The libfabric shared library to load (read once, as -Djfabric.libfabric.path)");

    private volatile String reason;
    private volatile boolean probed;

    /** Does no I/O: the library is probed on first use. */
    public LibfabricProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int version() {
        return unavailableReason() == null ? Fabric_h.fi_version() : MIN_VERSION;
    }

    @Override
    public String unavailableReason() {
        if (!probed) {
            synchronized (this) {
                if (!probed) {
                    reason = probe();
                    probed = true;
                }
            }
        }
        return reason;
    }

    private static String probe() {
        // before the library is loaded and bound: a denied module may do neither
        String denied = NativeAccess.deniedReason(LibfabricProvider.class.getModule(),
                () -> MemorySegment.NULL.reinterpret(0));
        if (denied != null) {
            return denied;
        }
        try {
            if (!Fabric_h.isAvailable()) {
                return Fabric_h.unavailableReason();
            }
            int v = Fabric_h.fi_version();
            if (v < MIN_VERSION) {
                return "libfabric " + Fabrics.major(v) + "." + Fabrics.minor(v)
                        + " is installed; the libfabric provider needs 1.17 or newer (its struct layouts are 1.17's)";
            }
            // native libfabric reads FI_PROVIDER on its first fi_getinfo, which comes after this probe
            String fiProvider = System.getenv("FI_PROVIDER");
            if (fiProvider != null) {
                LibC.setenv("FI_PROVIDER", ProviderFilter.translate(fiProvider));
            }
            return null;
        } catch (LinkageError | RuntimeException e) {
            return "libfabric could not be bound: " + e;
        }
    }

    @Override
    public List<ProviderParameter> parameters() {
        return List.of(CONTEXT_SLOTS, LIBRARY);
    }

    @Override
    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        if (unavailableReason() != null || sharedRxAsked(hints)) {
            return List.of();
        }
        Set<String> nativeNames = new LinkedHashSet<>();
        String requested = hints == null ? null : hints.providerName();
        if (requested == null || requested.isBlank() || requested.equals(NAME)) {
            nativeNames.add(null);
        } else {
            for (String part : requested.split(",")) {
                String p = part.trim();
                if (p.equals(NAME)) {
                    nativeNames.add(null);
                } else if (p.startsWith(InfoMapper.PREFIX) && p.length() > InfoMapper.PREFIX.length()) {
                    nativeNames.add(InfoMapper.nativeName(p));
                }
            }
        }
        List<FabricInfo> out = new ArrayList<>();
        for (String n : nativeNames) {
            out.addAll(nativeGetInfo(version == 0 ? Fabrics.API_VERSION : version, node, service, flags, hints, n));
        }
        return out;
    }

    /** rx_ctx_cnt FI_SHARED_CONTEXT: the bridge passes no fi_srx_context through, so such hints match nothing. */
    private static boolean sharedRxAsked(FabricInfo hints) {
        return hints != null && hints.epAttr != null && hints.epAttr.rxCtxCnt == Fabrics.SHARED_CONTEXT;
    }

    private static List<FabricInfo> nativeGetInfo(int version, String node, String service, long flags,
                                                  FabricInfo hints, String nativeName) {
        MemorySegment nh = MemorySegment.NULL;
        if (hints != null && InfoMapper.asksUnreachable(hints)) {
            LOG.log(System.Logger.Level.DEBUG, "libfabric:" + nativeName + " declined: hints ask for FI_HMEM, which "
                    + "no jfabric call reaches through the bridge");
            return List.of();
        }
        if (hints != null && InfoMapper.asksWithheld(hints, nativeName)) {
            LOG.log(System.Logger.Level.DEBUG, "libfabric:" + nativeName + " declined: hints ask for FI_MULTI_RECV, "
                    + "which the bridge withholds from it (libfabric 1.17's rxd writes past a multi-receive buffer)");
            return List.of();
        }
        if (hints != null) {
            nh = InfoMapper.toNative(hints, nativeName);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(Fabric_h.C_POINTER);
            int rc = Fabric_h.fi_getinfo(version, node == null ? MemorySegment.NULL : a.allocateFrom(node),
                    service == null ? MemorySegment.NULL : a.allocateFrom(service), flags, nh, out);
            if (rc != 0) {
                if (rc != -Errno.ENODATA) {
                    LOG.log(System.Logger.Level.DEBUG, "native fi_getinfo(" + nativeName + ") returned "
                            + ReturnCodes.strerror(rc));
                }
                return List.of();
            }
            MemorySegment head = out.get(Fabric_h.C_POINTER, 0);
            try {
                List<FabricInfo> infos = new ArrayList<>();
                for (MemorySegment i = head; i.address() != 0; i = fi_info.next(i)) {
                    FabricInfo j = InfoMapper.toJava(i);
                    // the bridge may offer a lower mr_iov_limit than the native provider matched the hints with
                    if (hints == null || hints.domainAttr == null
                            || hints.domainAttr.mrIovLimit <= j.domainAttr.mrIovLimit) {
                        infos.add(j);
                    }
                }
                return infos;
            } finally {
                Fabric_h.fi_freeinfo(head);
            }
        } finally {
            if (nh.address() != 0) {
                Fabric_h.fi_freeinfo(nh);
            }
        }
    }

    @Override
    public Fabric openFabric(FabricInfo info) {
        String reason = unavailableReason();
        if (reason != null) {
            throw new FabricException(Errno.ENODATA, "the libfabric provider is unavailable: " + reason);
        }
        if (info == null || info.providerName() == null || !info.providerName().startsWith(InfoMapper.PREFIX)) {
            throw new FabricException(Errno.EINVAL, "the libfabric provider opens infos named libfabric:<provider> only");
        }
        return LibfabricFabric.open(info, contextSlots());
    }

    private static int contextSlots() {
        String v = CONTEXT_SLOTS.value();
        try {
            int n = Integer.parseInt(v.trim());
            if (n > 0 && n <= (1 << 24)) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new FabricException(Errno.EINVAL, CONTEXT_SLOTS.envName() + "=" + v
                + " is not a slot count between 1 and 16777216");
    }
}
