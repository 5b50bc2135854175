package io.jfabric.spi;

import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;

import java.util.ArrayList;
import java.util.List;

/**
 * libfabric's {@code ofi_check_info} and {@code ofi_alter_info} (prov/util/src/util_attr.c) for
 * providers: whether one of a provider's infos can meet an application's hints, why not in words,
 * and the info it returns when it can.
 *
 * <p>The rules, in libfabric's order: ep_type; caps subset; the mode rule (a provider needing
 * FI_MR_LOCAL also needs FI_LOCAL_MR mode unless the hints speak mr_mode); addr_format compatibility;
 * fabric name, prov_name and versions; domain name, threading/progress/resource-management levels
 * ranked (not compared by value), av_type, mr_mode (legacy BASIC/SCALABLE alone, bits trimmed by the
 * requested caps) and domain limits; ep protocol, sizes, shared contexts, tag width; rx and tx limits.
 * On output the hints' primary caps replace the provider's (direction bits implied), the mr_mode is
 * trimmed, and the hints' threading, progress, av_type, sizes and op_flags override the defaults.
 *
 * <p>Differences: a fabric or domain name in the hints that differs from the info's declines it
 * (libfabric 1.17's socket providers ignore it); prov_name comparison is agnostic of layering order.
 */
public final class InfoMatcher {
    private InfoMatcher() {
    }

    /**
     * The provider infos that meet {@code hints}, each a copy altered by the hints. With null hints every info
     * is returned, altered as libfabric alters for no hints (legacy mr_mode bits dropped).
     *
     * @param providerInfos the provider's templates
     * @param hints the application's hints, or null
     * @param apiVersion the API version asked for, FI_VERSION(major, minor)
     * @return the altered copies that match, in the templates' order
     */
    public static List<FabricInfo> match(List<FabricInfo> providerInfos, FabricInfo hints, int apiVersion) {
        List<FabricInfo> out = new ArrayList<>();
        for (FabricInfo p : providerInfos) {
            if (InfoChecks.explain(p, hints, apiVersion) == null) {
                out.add(InfoOverrides.alter(p, hints, apiVersion));
            }
        }
        return out;
    }

    /**
     * Why {@code prov} does not meet {@code hints} at API 1.17.
     *
     * @param prov a provider info
     * @param hints the hints, or null
     * @return null when it meets them; otherwise the first reason, in words
     */
    public static String explain(FabricInfo prov, FabricInfo hints) {
        return InfoChecks.explain(prov, hints, Fabrics.API_VERSION);
    }

    /**
     * Why {@code prov} does not meet {@code hints} at {@code apiVersion}.
     *
     * @param prov a provider info
     * @param hints the hints, or null
     * @param apiVersion FI_VERSION(major, minor)
     * @return null when it meets them; otherwise the first reason, in words
     */
    public static String explain(FabricInfo prov, FabricInfo hints, int apiVersion) {
        return InfoChecks.explain(prov, hints, apiVersion);
    }

    /**
     * A copy of {@code prov} with the hints' overrides applied, as ofi_alter_info does.
     *
     * @param prov a provider info that meets the hints
     * @param hints the hints, or null
     * @param apiVersion FI_VERSION(major, minor)
     * @return the altered copy
     */
    public static FabricInfo alter(FabricInfo prov, FabricInfo hints, int apiVersion) {
        return InfoOverrides.alter(prov, hints, apiVersion);
    }

    /**
     * ofi_get_caps: the caps an attribute reports. Utility providers use it to derive core and layered caps.
     *
     * @param infoCaps the info's caps
     * @param hintCaps the hint's caps, 0 when none
     * @param attrCaps the attribute's own caps
     * @return the attribute's caps
     */
    public static long caps(long infoCaps, long hintCaps, long attrCaps) {
        return InfoOverrides.caps(infoCaps, hintCaps, attrCaps);
    }
}
