package io.jfabric.internal;

import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.spi.FabricProvider;
import io.jfabric.spi.InfoMatcher;
import io.jfabric.spi.ProviderStatus;
import io.jfabric.spi.UtilityProvider;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Supplier;

/**
 * libfabric's {@code fi_getinfo} (src/fabric.c) for {@link io.jfabric.Fabrics}: providers found once
 * with ServiceLoader, kept in libfabric's default order; a provider that fails to load or reports an
 * {@link FabricProvider#unavailableReason() unavailable reason} is left out with the reason kept. A provider
 * is asked for that reason only when a call first needs it ({@link ProbedProvider}), so one that the filter
 * or the hints exclude makes no native call.
 * Each call applies the FI_PROVIDER filter (the {@code jfabric.provider} system property wins over
 * the environment variable), the hints' prov_name layering rules, layers every utility provider over
 * each eligible core, and explains, provider by provider, why nothing matched.
 */
public final class Discovery {
    /** System property that overrides the FI_PROVIDER environment variable. */
    public static final String FILTER_PROPERTY = "jfabric.provider";
    private static final System.Logger LOG = System.getLogger("jfabric.core");
    private static volatile Discovery instance;

    /** Every provider that loaded, in libfabric's order, probed on first need. */
    private final List<ProbedProvider> found = new ArrayList<>();
    /** The providers that failed to load, named by class. */
    private final List<ProviderStatus> loadFailures = new ArrayList<>();
    /** The names of both, in that order. */
    private final List<String> names = new ArrayList<>();

    /** One ServiceLoader entry: the class name (for messages when it fails) and how to make it. */
    record Candidate(String className, Supplier<? extends FabricProvider> factory) {
    }

    Discovery(List<Candidate> candidates) {
        List<FabricProvider> loaded = new ArrayList<>();
        for (Candidate c : candidates) {
            try {
                loaded.add(c.factory().get());
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.WARNING, "provider {0} failed to load: {1}", c.className(), t);
                loadFailures.add(new ProviderStatus(c.className(), 0, false, "failed to load: " + describe(t)));
            }
        }
        loaded.sort(Comparator.comparingInt((FabricProvider p) -> ProviderNames.rank(p.name()))
                .thenComparing(FabricProvider::name));
        for (FabricProvider p : loaded) {
            found.add(new ProbedProvider(p));
            names.add(p.name());
        }
        for (ProviderStatus s : loadFailures) {
            names.add(s.name());
        }
    }

    /** Providers from ServiceLoader (module path or META-INF/services). */
    static Discovery load() {
        List<Candidate> candidates = new ArrayList<>();
        ServiceLoader<FabricProvider> loader = ServiceLoader.load(FabricProvider.class, Discovery.class.getClassLoader());
        var it = loader.stream().iterator();
        while (true) {
            ServiceLoader.Provider<FabricProvider> handle;
            try {
                if (!it.hasNext()) {
                    break;
                }
                handle = it.next();
            } catch (java.util.ServiceConfigurationError e) {
                candidates.add(new Candidate("(unknown provider)", () -> {
                    throw e;
                }));
                continue;
            }
            String name;
            try {
                name = handle.type().getName();
            } catch (Throwable t) {
                name = "(provider class not loadable)";
            }
            candidates.add(new Candidate(name, handle));
        }
        return new Discovery(candidates);
    }

    public static Discovery instance() {
        Discovery d = instance;
        if (d == null) {
            synchronized (Discovery.class) {
                d = instance;
                if (d == null) {
                    d = load();
                    instance = d;
                }
            }
        }
        return d;
    }

    /** Every provider found, available or not, in libfabric's order; load failures last. Probes them all. */
    public List<ProviderStatus> providers() {
        List<ProviderStatus> all = new ArrayList<>();
        for (ProbedProvider e : found) {
            all.add(e.status());
        }
        all.addAll(loadFailures);
        return all;
    }

    /** The usable providers, in libfabric's order (for parameter listings). Probes them all. */
    public List<FabricProvider> usableProviders() {
        List<FabricProvider> usable = new ArrayList<>();
        for (ProbedProvider e : found) {
            if (e.available()) {
                usable.add(e.provider);
            }
        }
        return usable;
    }

    /** Every provider that loaded, probed or not, in libfabric's order. */
    List<ProbedProvider> found() {
        return found;
    }

    /** What is known without probing: the statuses of the providers probed so far, then the load failures. */
    List<ProviderStatus> probedStatuses() {
        List<ProviderStatus> known = new ArrayList<>();
        for (ProbedProvider e : found) {
            ProviderStatus s = e.statusIfProbed();
            if (s != null) {
                known.add(s);
            }
        }
        known.addAll(loadFailures);
        return known;
    }

    /** The providers that failed to load, named by class. */
    List<ProviderStatus> loadFailures() {
        return loadFailures;
    }

    /** The names of every provider found (load failures by class name), without probing any. */
    List<String> names() {
        return names;
    }

    /** The filter in force: the jfabric.provider property, else FI_PROVIDER, else null. */
    public static String filterSpec() {
        String p = System.getProperty(FILTER_PROPERTY);
        return p != null ? p : System.getenv("FI_PROVIDER");
    }

    public List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints) {
        return getInfo(version, node, service, flags, hints, filterSpec());
    }

    /** fi_getinfo with an explicit FI_PROVIDER filter text (null for none). */
    List<FabricInfo> getInfo(int version, String node, String service, long flags, FabricInfo hints, String filterText) {
        if (Integer.compareUnsigned(version, Fabrics.API_VERSION) > 0) {
            throw new FabricException(Errno.ENOSYS, "API version " + Fabrics.major(version) + "."
                    + Fabrics.minor(version) + " is newer than jfabric's " + Fabrics.major(Fabrics.API_VERSION) + "."
                    + Fabrics.minor(Fabrics.API_VERSION) + "; ask for FI_VERSION(1, 17) or older");
        }
        if (flags == Fabrics.PROV_ATTR_ONLY) {
            return providerAttrs();
        }
        if ((flags & Fabrics.SOURCE) != 0 && node == null && service == null) {
            throw new FabricException(Errno.EINVAL, "FI_SOURCE needs a node or a service naming the local address");
        }
        ProviderFilter filter = ProviderFilter.parse(filterText);
        Query q = new Query(version, node, service, flags, hints, filter);
        List<FabricInfo> out = new ArrayList<>();
        for (ProbedProvider e : found) {
            FabricProvider p = e.provider;
            // the name rules first: a provider they leave out is never probed
            if (filter.hides(p.name(), p.isUtility())
                    || !Layering.ok(p.name(), p.isUtility(), q.names, false, this::layeringDisabled)
                    || !e.available()) {
                continue;
            }
            if (p instanceof UtilityProvider u) {
                out.addAll(layered(u, q));
            } else if (!p.isUtility()) {
                out.addAll(coreInfos(p, q, hints));
            }
        }
        out.removeIf(i -> filter.drops(i.providerName()));
        InfoOrder.preferNetRdm(out);
        InfoOrder.preferRoutable(out, node, hints);
        if (out.isEmpty()) {
            throw new FabricException(Errno.ENODATA, new NoMatchExplainer(this, q).explain());
        }
        return out;
    }

    /** What one getInfo call asked for. */
    record Query(int version, String node, String service, long flags, FabricInfo hints, ProviderFilter filter,
                 List<String> names) {
        Query(int version, String node, String service, long flags, FabricInfo hints, ProviderFilter filter) {
            this(version, node, service, flags, hints, filter,
                    Layering.split(hints == null || hints.fabricAttr == null ? null : hints.fabricAttr.provName));
        }
    }

    boolean layeringDisabled(String name) {
        for (ProbedProvider e : found) {
            FabricProvider p = e.provider;
            if (p.name().equalsIgnoreCase(name)) {
                return ProviderNames.layeringDisabled(p.name(), p.isUtility());
            }
        }
        return ProviderNames.layeringDisabled(name, ProviderNames.isUtilityName(name));
    }

    /** A core provider's infos for these hints, named and versioned as fi_getinfo names them. */
    List<FabricInfo> coreInfos(FabricProvider p, Query q, FabricInfo hints) {
        List<FabricInfo> infos;
        try {
            infos = p.getInfo(q.version(), q.node(), q.service(), q.flags(), hints);
        } catch (FabricException e) {
            LOG.log(System.Logger.Level.DEBUG, "provider {0} declined: {1}", p.name(), e.getMessage());
            return List.of();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "provider {0} getInfo failed: {1}", p.name(), e);
            return List.of();
        }
        List<FabricInfo> out = new ArrayList<>(infos == null ? 0 : infos.size());
        if (infos != null) {
            for (FabricInfo provided : infos) {
                // a copy: the provider may hand out infos it keeps
                FabricInfo i = provided.copy();
                if (i.fabricAttr.provName == null) {
                    i.fabricAttr.provName = p.name();
                }
                if (i.fabricAttr.provVersion == 0) {
                    i.fabricAttr.provVersion = p.version();
                }
                i.fabricAttr.apiVersion = q.version();
                out.add(i);
            }
        }
        return out;
    }

    /** Why a provider's getInfo fails for this query, or null when it does not throw. */
    String failure(FabricProvider p, FabricInfo hints, Query q) {
        try {
            p.getInfo(q.version(), q.node(), q.service(), q.flags(), hints);
            return null;
        } catch (RuntimeException e) {
            return describe(e);
        }
    }

    /** The cores a utility may layer over for this query, in order. */
    List<FabricProvider> coresFor(UtilityProvider u, Query q) {
        List<String> coreNames = Layering.forCores(q.names(), u.name());
        List<FabricProvider> cores = new ArrayList<>();
        for (ProbedProvider e : found) {
            FabricProvider c = e.provider;
            if (!q.filter().hides(c.name(), c.isUtility())
                    && Layering.ok(c.name(), c.isUtility(), coreNames, true, this::layeringDisabled)
                    && e.available()) {
                cores.add(c);
            }
        }
        return cores;
    }

    /** ofi_info_to_core: the utility's core hints plus the user's addresses, names and the core-name selection. */
    FabricInfo coreHints(UtilityProvider u, Query q) {
        FabricInfo ch = u.coreHints(q.hints());
        if (ch == null) {
            return null;
        }
        FabricInfo user = q.hints();
        if (user != null) {
            if (user.srcAddr != null || user.destAddr != null) {
                ch.addrFormat = user.addrFormat;
                ch.srcAddr = user.srcAddr == null ? null : user.srcAddr.clone();
                ch.destAddr = user.destAddr == null ? null : user.destAddr.clone();
            }
            if (user.fabricAttr != null && user.fabricAttr.name != null) {
                ch.fabricAttr.name = user.fabricAttr.name;
            }
            if (user.domainAttr != null && user.domainAttr.name != null) {
                ch.domainAttr.name = user.domainAttr.name;
            }
        }
        List<String> rest = new ArrayList<>(q.names());
        rest.removeIf(n -> n.equalsIgnoreCase(u.name()) || n.startsWith("^"));
        ch.fabricAttr.provName = rest.isEmpty() ? null : String.join(";", rest);
        return ch;
    }

    /** ofix_getinfo: the utility over every eligible core info, checked against and altered by the user's hints. */
    private List<FabricInfo> layered(UtilityProvider u, Query q) {
        FabricInfo ch = coreHints(u, q);
        if (ch == null) {
            return List.of();
        }
        FabricInfo userHints = namelessHints(q.hints());
        List<FabricInfo> out = new ArrayList<>();
        for (FabricProvider core : coresFor(u, q)) {
            for (FabricInfo ci : coreInfos(core, q, ch)) {
                FabricInfo l = layerOne(u, ci, q);
                if (l != null && InfoMatcher.explain(l, userHints, q.version()) == null) {
                    out.add(InfoMatcher.alter(l, userHints, q.version()));
                }
            }
        }
        return out;
    }

    /** One layered info, named "core;utility" (ofi_info_to_util plus ofi_set_prov_attr), or null. */
    FabricInfo layerOne(UtilityProvider u, FabricInfo coreInfo, Query q) {
        FabricInfo l;
        try {
            l = u.layer(coreInfo, q.hints());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "utility {0} failed to layer over {1}: {2}", u.name(),
                    coreInfo.providerName(), e);
            return null;
        }
        if (l == null) {
            return null;
        }
        if (l.fabricAttr.name == null) {
            l.fabricAttr.name = coreInfo.fabricAttr.name;
        }
        if (l.domainAttr.name == null) {
            l.domainAttr.name = coreInfo.domainAttr.name;
        }
        if (l.srcAddr == null && l.destAddr == null) {
            l.addrFormat = coreInfo.addrFormat;
            l.srcAddr = coreInfo.srcAddr == null ? null : coreInfo.srcAddr.clone();
            l.destAddr = coreInfo.destAddr == null ? null : coreInfo.destAddr.clone();
        }
        l.fabricAttr.provName = coreInfo.providerName() + ";" + u.name();
        l.fabricAttr.provVersion = u.version();
        l.fabricAttr.apiVersion = q.version();
        return l;
    }

    /** The user's hints without prov_name: discovery has already applied the names by layering rules. */
    static FabricInfo namelessHints(FabricInfo hints) {
        if (hints == null || hints.fabricAttr == null || hints.fabricAttr.provName == null) {
            return hints;
        }
        FabricInfo h = hints.copy();
        h.fabricAttr.provName = null;
        return h;
    }

    /** FI_PROV_ATTR_ONLY: one info per usable provider with only its name and version. */
    private List<FabricInfo> providerAttrs() {
        List<FabricInfo> out = new ArrayList<>();
        for (FabricProvider p : usableProviders()) {
            FabricInfo i = new FabricInfo();
            i.fabricAttr.provName = p.name();
            i.fabricAttr.provVersion = p.version();
            out.add(i);
        }
        if (out.isEmpty()) {
            throw new FabricException(Errno.ENODATA, "no provider is available; add io.jfabric:jfabric-all, or "
                    + "provider artifacts such as io.jfabric:provider-tcp, to the " + NoMatchExplainer.path()
                    + NoMatchExplainer.unavailable(providers()));
        }
        return out;
    }

    public Fabric openFabric(FabricInfo info) {
        String name = info.providerName();
        if (name == null) {
            throw new FabricException(Errno.EINVAL, "the info names no provider; pass an info from Fabrics.getInfo");
        }
        String owner = ProviderNames.owner(name);
        for (ProbedProvider e : found) {
            if (e.name().equalsIgnoreCase(owner) && e.available()) {
                return e.provider.openFabric(info);
            }
        }
        String artifact = ProviderNames.artifact(owner);
        String missing = artifact == null || NoMatchExplainer.found(owner, names()) ? ""
                : "\n  " + NoMatchExplainer.notOnPath(owner, artifact);
        throw new FabricException(Errno.ENODATA, "no available provider named '" + owner + "' opens '" + name
                + "'" + missing + NoMatchExplainer.unavailable(probedStatuses()));
    }

    static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String msg = root.getMessage();
        return root.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
    }
}
