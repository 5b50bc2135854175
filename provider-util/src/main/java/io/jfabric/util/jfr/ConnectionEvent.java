package io.jfabric.util.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * A connection changed state: established, refused or closed, with the peer and the reason. Providers emit it
 * from their connection manager, never from the data path.
 */
@Name("jfabric.Connection")
@Label("Connection")
@Category({"jfabric", "Connections"})
@Description("A connection was established, refused or closed")
public final class ConnectionEvent extends jdk.jfr.Event {
    public static final String ESTABLISHED = "established";
    public static final String REFUSED = "refused";
    public static final String CLOSED = "closed";

    @Label("Provider")
    public String provider;

    @Label("State")
    @Description("established, refused or closed")
    public String state;

    @Label("Local address")
    public String local;

    @Label("Peer address")
    public String peer;

    @Label("Reason")
    @Description("why it was refused or closed; empty when established")
    public String reason;

    private static final EventGate GATE = new EventGate(ConnectionEvent.class);

    /** Emits one event if recording asks for it; costs a flag test when it doesn't. */
    public static void emit(String provider, String state, String local, String peer, String reason) {
        if (!GATE.isRecorded()) {
            return;
        }
        ConnectionEvent e = new ConnectionEvent();
        if (e.shouldCommit()) {
            e.provider = provider;
            e.state = state;
            e.local = local;
            e.peer = peer;
            e.reason = reason;
            e.commit();
        }
    }
}
