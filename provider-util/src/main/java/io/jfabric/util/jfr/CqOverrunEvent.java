package io.jfabric.util.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Registered;

/** A completion queue overran: from here on its completions are lost until it is reopened (fi_cq(3)). */
@Registered(false) // registered by its EventGate once a recording exists (EventGate says why)
@Name("jfabric.CqOverrun")
@Label("CQ overrun")
@Category({"jfabric", "Completions"})
@Description("A completion did not fit the completion queue; the queue reports FI_EOVERRUN")
public final class CqOverrunEvent extends jdk.jfr.Event {
    @Label("Capacity")
    public int capacity;

    @Label("Completion queue")
    public String cq;
}
