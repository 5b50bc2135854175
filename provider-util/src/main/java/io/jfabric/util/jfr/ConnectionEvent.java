package io.jfabric.util.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Registered;
import jdk.jfr.StackTrace;

/**
 * A connection changed state: established, refused or closed, with the peer and the reason. Providers emit it
 * from their connection manager, never from the data path.
 */
@Registered(false) // registered by its EventGate once a recording exists (EventGate says why)
@Name("jfabric.Connection")
@Label("Connection")
@Category({"jfabric", "Connections"})
@Description("A connection was established, refused or closed")
@StackTrace(false) // raised inside the provider's progress: its stack says nothing about the application
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

    /** Whether the event is recorded: ask first when the strings to pass cost something to make. */
    public static boolean isRecorded() {
        return GATE.isRecorded();
    }

    /**
     * {@link #emit(String, String, String, String, String)} with sockaddr bytes, printed the way util's
     * {@link io.jfabric.util.Sockaddr#straddr(byte[])} prints them ({@code fi_sockaddr_in://...}) only when the
     * event is recorded; null stays null.
     */
    public static void emitSockaddrs(String provider, String state, byte[] local, byte[] peer, String reason) {
        if (GATE.isRecorded()) {
            emit(provider, state, local == null ? null : io.jfabric.util.Sockaddr.straddr(local),
                    peer == null ? null : io.jfabric.util.Sockaddr.straddr(peer), reason);
        }
    }

    /** {@link #emitSockaddrs} for socket addresses; null stays null. */
    public static void emitInet(String provider, String state, java.net.InetSocketAddress local,
                                java.net.InetSocketAddress peer, String reason) {
        if (GATE.isRecorded()) {
            emitSockaddrs(provider, state, local == null ? null : io.jfabric.util.Sockaddr.of(local),
                    peer == null ? null : io.jfabric.util.Sockaddr.of(peer), reason);
        }
    }

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
