package io.jfabric.conformance;

import io.jfabric.Domain;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;

/** A fabric and a domain of one case, tracked by the test's {@link StateDump}: what object-level tests start from. */
record OpenDomain(Fabric fabric, Domain domain) {
    static OpenDomain of(FabricCase c, StateDump dump) {
        dump.caseUnderTest(c);
        FabricInfo info = c.freshInfo();
        Fabric fabric = dump.track(Fabrics.openFabric(info));
        return new OpenDomain(fabric, dump.track(fabric.openDomain(info)));
    }
}
