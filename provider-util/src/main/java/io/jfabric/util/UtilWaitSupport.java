package io.jfabric.util;

import io.jfabric.FabricObject;
import io.jfabric.PollSet;
import io.jfabric.WaitAttr;
import io.jfabric.WaitSet;
import io.jfabric.spi.WaitSupport;

/** Serves fabric-api's wait sets, poll sets and fi_trywait with util's, for every Java provider. */
public final class UtilWaitSupport implements WaitSupport {
    @Override
    public WaitSet openWait(WaitAttr attr) {
        return new UtilWaitSet(attr);
    }

    @Override
    public PollSet openPoll() {
        return new UtilPollSet();
    }

    @Override
    public int trywait(FabricObject... objects) {
        return UtilWaitSet.trywait(objects);
    }
}
