package io.jfabric.util.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Registered;

/** An operation completed with an error: what an operator needs after the fact to see why work failed. */
@Registered(false) // registered by its EventGate once a recording exists (EventGate says why)
@Name("jfabric.OperationError")
@Label("Operation error")
@Category({"jfabric", "Completions"})
@Description("An operation completed with an error completion")
public final class OperationErrorEvent extends jdk.jfr.Event {
    @Label("Error")
    @Description("libfabric error number (FI_E*)")
    public int err;

    @Label("Error name")
    public String errName;

    @Label("Provider errno")
    public int provErrno;

    @Label("Flags")
    @Description("the completion's flags, as fi_tostr prints them")
    public String flags;

    @Label("Length")
    public long len;

    @Label("Truncated bytes")
    public long olen;

    @Label("Context")
    public String context;
}
