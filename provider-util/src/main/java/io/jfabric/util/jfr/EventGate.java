package io.jfabric.util.jfr;

import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;

/**
 * Whether an event type is being recorded, answered without creating an event. {@code new Event()} followed by
 * {@code shouldCommit()} allocates until C2's escape analysis removes it, which is too late for a path that
 * must allocate nothing once warm; this asks first. Before any recording has started it neither allocates nor
 * starts JFR.
 */
public final class EventGate {
    private final Class<? extends Event> type;
    private volatile EventType eventType;

    public EventGate(Class<? extends Event> type) {
        this.type = type;
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
