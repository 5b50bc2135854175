package io.jfabric.util.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Registered;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * One large message moved by a multi-step protocol (ofi_rxm's SAR or rendezvous), from its post to its
 * completion at the sender. Thresholded: only transfers slower than the threshold are recorded (1 ms unless
 * the recording's settings say otherwise, e.g. {@code jfabric.ProtocolTransfer#threshold=0ms}). A provider
 * creates the event only when {@link #GATE} says it is recorded, so the eager path and unrecorded runs never
 * allocate one.
 */
@Registered(false) // registered by its EventGate once a recording exists (EventGate says why)
@Name("jfabric.ProtocolTransfer")
@Label("Protocol transfer")
@Category({"jfabric", "Transfers"})
@Description("A rendezvous or segmented (SAR) message, from its post to its completion at the sender")
@Threshold("1 ms")
@StackTrace(false)
public final class ProtocolTransferEvent extends jdk.jfr.Event {
    /** Asks whether the event is recorded without creating one. */
    public static final EventGate GATE = new EventGate(ProtocolTransferEvent.class);

    @Label("Provider")
    public String provider;

    @Label("Protocol")
    @Description("SAR, rendezvous (read) or rendezvous (write)")
    public String protocol;

    @Label("Size")
    @DataAmount
    public long size;

    @Label("Peer address")
    public String peer;

    @Label("Error")
    @Description("the errno the transfer failed with; 0 when it completed")
    public int err;
}
