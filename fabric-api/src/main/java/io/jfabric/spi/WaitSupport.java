package io.jfabric.spi;

import io.jfabric.FabricObject;
import io.jfabric.PollSet;
import io.jfabric.WaitAttr;
import io.jfabric.WaitSet;

/**
 * Wait sets, poll sets and fi_trywait shared by every Java provider, found with {@link java.util.ServiceLoader}
 * (provider-util provides it), so that {@link io.jfabric.Fabric#openWait}, {@link io.jfabric.Domain#openPoll}
 * and {@link io.jfabric.Fabric#trywait} work on any provider's objects without each provider repeating them.
 */
public interface WaitSupport {
    /**
     * {@code fi_wait_open}.
     *
     * @param attr the wait set's attributes
     * @return a wait set that queues of any Java provider can join
     */
    WaitSet openWait(WaitAttr attr);

    /**
     * {@code fi_poll_open}.
     *
     * @return a poll set over queues of any Java provider
     */
    PollSet openPoll();

    /**
     * {@code fi_trywait}.
     *
     * @param objects queues, counters and wait sets
     * @return 0, -FI_EAGAIN or -FI_EINVAL as {@link io.jfabric.Fabric#trywait} describes
     */
    int trywait(FabricObject... objects);
}
