package io.jfabric.util.jfr;

import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;

/**
 * Whether an event type is being recorded, answered without creating an event. {@code new Event()} followed by
 * {@code shouldCommit()} allocates until C2's escape analysis removes it, which is too late for a path that
 * must allocate nothing once warm; this asks first. Before any recording has started it neither allocates nor
 * starts JFR.
 *
 * <p>It also registers its event type, once the Flight Recorder is initialized. jfabric's events are
 * {@code @Registered(false)}: a registered event class registers itself when it is initialized, and the first
 * registration in a JVM builds JFR's metadata repository, 80-100 ms of a cold JVM even when nothing records; the
 * first connection of every process (its ConnectionEvent) and rxm's first rendezvous (its ProtocolTransferEvent)
 * paid for it. Registered here instead, an event class costs nothing until a recording exists.
 */
public final class EventGate {
    private final Class<? extends Event> type;
    private volatile EventType eventType;

    public EventGate(Class<? extends Event> type) {
        this.type = type;
        // runs at once when the recorder is already initialized, else when the first recording is made
        FlightRecorder.addListener(new FlightRecorderListener() {
            @Override
            public void recorderInitialized(FlightRecorder recorder) {
                FlightRecorder.register(type);
            }
        });
    }

    public boolean isRecorded() {
        if (!FlightRecorder.isInitialized()) {
            return false;
        }
        EventType t = eventType;
        if (t == null) {
            t = EventType.getEventType(type);
            eventType = t;
        }
        return t.isEnabled();
    }
}
