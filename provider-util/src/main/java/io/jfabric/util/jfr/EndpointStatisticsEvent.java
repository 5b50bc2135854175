package io.jfabric.util.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Registered;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/**
 * One live endpoint's counts, sampled every period by {@link EndpointStatistics}: what the endpoint already
 * counts (bound counters, its CQs' fill and losses, its queues, its connections), read racily from another
 * thread, so a sample costs the data path nothing. A value of -1 means the endpoint does not have it (no
 * counter of that kind bound, a queue the provider does not keep).
 */
@Registered(false) // registered by its EventGate once a recording exists (EventGate says why)
@Name("jfabric.EndpointStatistics")
@Label("Endpoint statistics")
@Category({"jfabric", "Endpoints"})
@Description("Counters, completion queue fill, queue depths and connections of each live endpoint")
@Period("1 s")
@StackTrace(false)
public final class EndpointStatisticsEvent extends jdk.jfr.Event {
    @Label("Provider")
    public String provider;

    @Label("Endpoint")
    @Description("the endpoint's local address, as fi_av_straddr prints it, or another name the provider gives it")
    public String endpoint;

    @Label("Sends counted")
    @Description("the bound FI_SEND counter's value (fi_cntr_read), -1 when none is bound")
    public long sends = -1;

    @Label("Receives counted")
    @Description("the bound FI_RECV counter's value, -1 when none is bound")
    public long receives = -1;

    @Label("Reads counted")
    public long reads = -1;

    @Label("Writes counted")
    public long writes = -1;

    @Label("Remote reads counted")
    public long remoteReads = -1;

    @Label("Remote writes counted")
    public long remoteWrites = -1;

    @Label("Counted errors")
    @Description("the sum of the bound counters' error values (fi_cntr_readerr), -1 when no counter is bound")
    public long counterErrors = -1;

    @Label("Transmit CQ entries")
    @Description("completions waiting in the transmit CQ, -1 when none is bound")
    public int txCqEntries = -1;

    @Label("Receive CQ entries")
    @Description("completions waiting in the receive CQ (the same CQ as transmit when one is bound for both)")
    public int rxCqEntries = -1;

    @Label("CQ capacity")
    @Description("the transmit CQ's size (the receive CQ's when only that is bound)")
    public int cqCapacity = -1;

    @Label("CQ overrun")
    @Description("whether a bound CQ has overrun (fi_cq(3): FI_EOVERRUN until it is reopened)")
    public boolean cqOverrun;

    @Label("Lost completions")
    @Description("completions the bound CQs refused since they overran")
    public long lostCompletions;

    @Label("Transmits in flight")
    @Description("transmit operations posted and not yet completed, -1 when the provider does not keep the count")
    public int txInFlight = -1;

    @Label("Connections")
    @Description("connections to peers: 0 or 1 for a MSG endpoint, the peers reached for an RDM one; -1 when "
            + "the provider has none (shm)")
    public int connections = -1;
}
