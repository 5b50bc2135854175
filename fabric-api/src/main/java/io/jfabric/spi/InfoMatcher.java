package io.jfabric.spi;

import io.jfabric.FabricInfo;

import java.util.ArrayList;
import java.util.List;

/**
 * libfabric's {@code ofi_check_info} and {@code ofi_alter_info}: whether a provider's info can meet an
 * application's hints, why not, and the info it returns when it can.
 */
public final class InfoMatcher {
    private InfoMatcher() {
    }

    /** The provider infos that meet {@code hints}, each a copy altered by the hints; all of them if hints is null. */
    public static List<FabricInfo> match(List<FabricInfo> providerInfos, FabricInfo hints, int apiVersion) {
        List<FabricInfo> out = new ArrayList<>();
        for (FabricInfo p : providerInfos) {
            if (hints == null) {
                out.add(p.copy());
            } else if (explain(p, hints) == null) {
                out.add(alter(p, hints, apiVersion));
            }
        }
        return out;
    }

    /** Null when {@code prov} meets {@code hints}; otherwise the first reason it does not, in words. */
    public static String explain(FabricInfo prov, FabricInfo hints) {
        return InfoChecks.explain(prov, hints);
    }

    /** A copy of {@code prov} with the hints' overrides applied, as ofi_alter_info does. */
    public static FabricInfo alter(FabricInfo prov, FabricInfo hints, int apiVersion) {
        return InfoChecks.alter(prov, hints, apiVersion);
    }
}
