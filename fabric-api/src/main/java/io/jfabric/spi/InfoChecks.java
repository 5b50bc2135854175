package io.jfabric.spi;

import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;

/** The individual checks behind {@link InfoMatcher}. */
final class InfoChecks {
    private InfoChecks() {
    }

    static String explain(FabricInfo prov, FabricInfo hints) {
        if (hints == null) {
            return null;
        }
        long missing = hints.caps & ~prov.caps;
        if (missing != 0) {
            return "caps " + Caps.toString(missing) + " not supported";
        }
        if ((hints.mode & prov.mode) != prov.mode) {
            return "needs mode " + io.jfabric.Mode.toString(prov.mode & ~hints.mode) + " which the hints do not accept";
        }
        EndpointType want = hints.epAttr == null ? EndpointType.UNSPEC : hints.epAttr.type;
        if (want != EndpointType.UNSPEC && prov.epAttr.type != EndpointType.UNSPEC && want != prov.epAttr.type) {
            return "ep_type " + want.cName() + " not supported (offers " + prov.epAttr.type.cName() + ")";
        }
        return null;
    }

    static FabricInfo alter(FabricInfo prov, FabricInfo hints, int apiVersion) {
        FabricInfo out = prov.copy();
        out.fabricAttr.apiVersion = apiVersion;
        if (hints.caps != 0) {
            out.caps = (hints.caps & Caps.PRIMARY) | (prov.caps & Caps.SECONDARY);
        }
        out.mode = prov.mode & hints.mode;
        return out;
    }
}
