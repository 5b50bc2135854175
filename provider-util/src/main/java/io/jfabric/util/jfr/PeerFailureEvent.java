package io.jfabric.util.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Registered;
import jdk.jfr.StackTrace;

/** A peer was found dead or unreachable, and the operations posted to it were failed. */
@Registered(false) // registered by its EventGate once a recording exists (EventGate says why)
@Name("jfabric.PeerFailure")
@Label("Peer failure")
@Category({"jfabric", "Connections"})
@Description("A peer died or became unreachable; its pending operations completed with errors")
@StackTrace(false) // raised inside the provider's progress: its stack says nothing about the application
public final class PeerFailureEvent extends jdk.jfr.Event {
    @Label("Provider")
    public String provider;

    @Label("Peer address")
    public String peer;

    @Label("Error")
    @Description("the errno the pending operations completed with")
    public int err;

    @Label("Failed operations")
    public int failedOperations;

    @Label("Reason")
    public String reason;

    private static final EventGate GATE = new EventGate(PeerFailureEvent.class);

    /** Whether the event is recorded: ask first when the peer's name costs something to make. */
    public static boolean isRecorded() {
        return GATE.isRecorded();
    }

    /** Emits one event if recording asks for it. */
    public static void emit(String provider, String peer, int err, int failedOperations, String reason) {
        if (!GATE.isRecorded()) {
            return;
        }
        PeerFailureEvent e = new PeerFailureEvent();
        if (e.shouldCommit()) {
            e.provider = provider;
            e.peer = peer;
            e.err = err;
            e.failedOperations = failedOperations;
            e.reason = reason;
            e.commit();
        }
    }
}
