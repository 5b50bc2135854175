package io.jfabric.internal;

import io.jfabric.FabricInfo;
import io.jfabric.spi.FabricProvider;
import io.jfabric.spi.InfoMatcher;
import io.jfabric.spi.ProviderStatus;
import io.jfabric.spi.UtilityProvider;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Says, provider by provider, why fi_getinfo found nothing: libfabric returns a bare -61 here.
 * Each provider's unfiltered infos ({@code getInfo(..., null)}) are run through
 * {@link InfoMatcher#explain}; utilities report per eligible core.
 */
final class NoMatchExplainer {
    private static final int MAX_REASONS = 4;
    private final Discovery discovery;
    private final Discovery.Query q;

    NoMatchExplainer(Discovery discovery, Discovery.Query q) {
        this.discovery = discovery;
        this.q = q;
    }

    String explain() {
        StringBuilder sb = new StringBuilder("no provider matched the hints");
        if (q.filter().active()) {
            sb.append(" (FI_PROVIDER/jfabric.provider='").append(q.filter().spec()).append("')");
        }
        sb.append(':');
        sb.append(missingArtifacts());
        String unknown = unknownNames();
        if (unknown != null) {
            sb.append("\n  hints prov_name names no known provider: ").append(unknown);
        }
        boolean anyUsable = false;
        for (ProbedProvider e : discovery.found()) {
            sb.append("\n  ").append(e.name()).append(": ").append(reason(e));
            // only the providers the query probed count: one it left out may well work
            ProviderStatus s = e.statusIfProbed();
            anyUsable |= s == null || s.available();
        }
        sb.append(unavailable(discovery.loadFailures()));
        if (!anyUsable) {
            sb.append("\n  (no provider is available: add io.jfabric:jfabric-all, or a provider artifact such as "
                    + "io.jfabric:provider-tcp, to the ").append(path()).append(')');
        }
        // the providers above are this application's; the jfabric CLI has its own set, so it is not named here
        sb.append("\nRelax the hints or choose another provider; the providers listed are those on this "
                + "application's ").append(path());
        return sb.toString();
    }

    /** "class path" or "module path": where this application found fabric-api, and so its providers. */
    static String path() {
        return NoMatchExplainer.class.getModule().isNamed() ? "module path" : "class path";
    }

    /**
     * One line per provider the hints or the filter name that jfabric has but this application lacks, with the
     * artifact to add, or "". "libfabric:..." names a native layering: only its first name is jfabric's.
     */
    private String missingArtifacts() {
        Set<String> asked = new LinkedHashSet<>(nativeAware(q.names()));
        if (q.filter().active() && !q.filter().negated()) {
            for (String f : q.filter().names()) {
                asked.addAll(nativeAware(Layering.split(f)));
            }
        }
        StringBuilder sb = new StringBuilder();
        Set<String> reported = new LinkedHashSet<>();
        for (String n : asked) {
            String artifact = ProviderNames.artifact(n);
            if (artifact != null && !found(n) && reported.add(artifact)) {
                sb.append("\n  ").append(notOnPath(n, artifact));
            }
        }
        return sb.toString();
    }

    /** The names that designate providers: all but exclusions, or only the first of a "libfabric:" layering. */
    private static List<String> nativeAware(List<String> names) {
        if (!names.isEmpty() && names.get(0).indexOf(':') > 0) {
            return names.subList(0, 1);
        }
        List<String> out = new ArrayList<>();
        for (String n : names) {
            if (!n.startsWith("^")) {
                out.add(n);
            }
        }
        return out;
    }

    /** Whether discovery found (loaded, available or not) the provider this name designates. */
    private boolean found(String given) {
        return found(given, discovery.names());
    }

    static boolean found(String given, List<String> names) {
        for (String n : names) {
            if (ProviderNames.designates(given, n)) {
                return true;
            }
        }
        return false;
    }

    /** What to add for a provider of jfabric's that this application's path lacks. */
    static String notOnPath(String name, String artifact) {
        return "provider '" + name + "' is not on the " + path() + ": add io.jfabric:" + artifact
                + " (or io.jfabric:jfabric-all)";
    }

    /** The unavailable providers and why, one per line, or "". */
    static String unavailable(List<ProviderStatus> statuses) {
        StringBuilder sb = new StringBuilder();
        for (ProviderStatus s : statuses) {
            if (!s.available()) {
                sb.append("\n  ").append(s.name()).append(": unavailable: ").append(s.unavailableReason());
            }
        }
        return sb.toString();
    }

    private String unknownNames() {
        List<String> unknown = new ArrayList<>();
        List<String> given = q.names().isEmpty() || q.names().get(0).indexOf(':') < 0 ? q.names()
                : q.names().subList(0, 1);
        for (String n : given) {
            String bare = n.startsWith("^") ? n.substring(1) : n;
            // a name of jfabric's own that is missing here has its artifact line instead
            boolean missingArtifact = !n.startsWith("^") && ProviderNames.artifact(bare) != null;
            if (!found(bare) && !missingArtifact) {
                unknown.add(bare);
            }
        }
        if (unknown.isEmpty()) {
            return null;
        }
        List<String> all = discovery.names();
        return String.join(", ", unknown) + " (known: " + (all.isEmpty() ? "none" : String.join(", ", all)) + ")";
    }

    private String reason(ProbedProvider e) {
        FabricProvider p = e.provider;
        if (q.filter().hides(p.name(), p.isUtility())) {
            return "excluded by the provider filter '" + q.filter().spec() + "'";
        }
        if (!Layering.ok(p.name(), p.isUtility(), q.names(), false, discovery::layeringDisabled)) {
            return "not selected by hints prov_name '" + q.hints().fabricAttr.provName + "'";
        }
        if (!e.available()) {
            return "unavailable: " + e.status().unavailableReason();
        }
        if (p instanceof UtilityProvider u) {
            return utilityReason(u);
        }
        return coreReason(p, q.hints(), "");
    }

    private String coreReason(FabricProvider p, FabricInfo hints, String prefix) {
        List<FabricInfo> all = discovery.coreInfos(p, q, null);
        String failure = discovery.failure(p, hints, q);
        if (failure != null) {
            return prefix + "getInfo failed: " + failure;
        }
        if (all.isEmpty()) {
            return prefix + "offers nothing on this machine for node=" + q.node() + " service=" + q.service();
        }
        Set<String> reasons = new LinkedHashSet<>();
        for (FabricInfo i : all) {
            String r = InfoMatcher.explain(i, hints, q.version());
            if (r != null) {
                reasons.add(r);
            }
        }
        if (reasons.isEmpty()) {
            if (!discovery.coreInfos(p, q, hints).isEmpty()) {
                return prefix + "matched, but the provider filter '" + q.filter().spec() + "' dropped its infos";
            }
            return prefix + "declined the node, service or flags (node=" + q.node() + ", service=" + q.service() + ")";
        }
        return prefix + join(reasons);
    }

    private String utilityReason(UtilityProvider u) {
        List<FabricProvider> cores = discovery.coresFor(u, q);
        if (cores.isEmpty()) {
            String why = q.filter().active() && !q.filter().negated()
                    ? "the provider filter '" + q.filter().spec() + "' names no core it may layer over (name one, "
                    + "e.g. 'tcp')"
                    : "it skips shm, sockets and other utilities unless prov_name names them, e.g. \"shm;"
                    + u.name() + "\"";
            return "no core provider to layer over (" + why + ")";
        }
        FabricInfo ch = discovery.coreHints(u, q);
        if (ch == null) {
            return "cannot serve these hints over any core";
        }
        FabricInfo userHints = Discovery.namelessHints(q.hints());
        List<String> parts = new ArrayList<>();
        for (FabricProvider core : cores) {
            List<FabricInfo> coreInfos = discovery.coreInfos(core, q, ch);
            if (coreInfos.isEmpty()) {
                parts.add(coreReason(core, ch, "over " + core.name() + ": the core offers nothing it needs: "));
                continue;
            }
            Set<String> reasons = new LinkedHashSet<>();
            for (FabricInfo ci : coreInfos) {
                FabricInfo l = discovery.layerOne(u, ci, q);
                String r = l == null ? "cannot layer over " + ci.providerName()
                        : InfoMatcher.explain(l, userHints, q.version());
                if (r != null) {
                    reasons.add(r);
                }
            }
            parts.add("over " + core.name() + ": " + (reasons.isEmpty()
                    ? "dropped by the provider filter '" + q.filter().spec() + "'" : join(reasons)));
        }
        return String.join("; ", parts);
    }

    private static String join(Set<String> reasons) {
        List<String> list = new ArrayList<>(reasons);
        String s = String.join("; ", list.subList(0, Math.min(MAX_REASONS, list.size())));
        return list.size() > MAX_REASONS ? s + "; ..." : s;
    }
}
