package io.jfabric.internal;

import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;

import java.util.ArrayList;
import java.util.List;

/** libfabric's {@code ofi_reorder_info}: native "net" RDM infos go ahead of "net;ofi_rxm" ones. */
final class InfoOrder {
    private InfoOrder() {
    }

    static void preferNetRdm(List<FabricInfo> infos) {
        List<FabricInfo> net = new ArrayList<>();
        for (FabricInfo i : infos) {
            if (isRdm(i, "net")) {
                net.add(i);
            }
        }
        if (net.isEmpty()) {
            return;
        }
        infos.removeAll(net);
        int at = infos.size();
        for (int k = 0; k < infos.size(); k++) {
            if (isRdm(infos.get(k), "net;ofi_rxm")) {
                at = k;
                break;
            }
        }
        infos.addAll(at, net);
    }

    private static boolean isRdm(FabricInfo i, String name) {
        return name.equalsIgnoreCase(i.providerName()) && i.epAttr != null && i.epAttr.type == EndpointType.RDM;
    }
}
