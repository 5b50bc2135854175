package io.jfabric.util.jfr;

import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;

import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * The live endpoints that {@code jfabric.EndpointStatistics} samples: a provider registers an endpoint when it
 * is enabled and unregisters it on close. The registry holds endpoints weakly, so an endpoint the application
 * drops without closing is not kept alive by it. The periodic hook is installed only once the Flight Recorder
 * is initialized (a recording starts), so a process that never records never touches JFR for it.
 */
public final class EndpointStatistics {
    /** An endpoint that can describe itself in one sample. */
    public interface Source {
        /**
         * Fills {@code e} with what the endpoint counts. Runs on JFR's periodic thread, concurrently with the
         * data path: read plain fields only, take no lock the data path takes, walk no list it changes.
         */
        void sample(EndpointStatisticsEvent e);
    }

    private static final Set<Source> LIVE = Collections.newSetFromMap(new WeakHashMap<>());
    private static final EventGate GATE = new EventGate(EndpointStatisticsEvent.class);
    private static final Runnable HOOK = EndpointStatistics::sampleNow;

    static {
        FlightRecorder.addListener(new FlightRecorderListener() {
            @Override
            public void recorderInitialized(FlightRecorder recorder) {
                FlightRecorder.addPeriodicEvent(EndpointStatisticsEvent.class, HOOK);
            }
        });
    }

    private EndpointStatistics() {
    }

    /** Starts sampling {@code source} (endpoint enable). Control path. */
    public static void register(Source source) {
        synchronized (LIVE) {
            LIVE.add(source);
        }
    }

    /** Stops sampling {@code source} (endpoint close); nothing when it was never registered. */
    public static void unregister(Source source) {
        synchronized (LIVE) {
            LIVE.remove(source);
        }
    }

    /** How many endpoints are registered, for tests. */
    static int live() {
        synchronized (LIVE) {
            return LIVE.size();
        }
    }

    /**
     * Samples every registered endpoint now, as each period does: for a state worth keeping that a period
     * might miss, e.g. just before {@code jcmd <pid> JFR.dump}. Nothing when the event is not recorded.
     */
    public static void sampleNow() {
        if (!GATE.isRecorded()) {
            return;
        }
        Source[] sources;
        synchronized (LIVE) {
            sources = LIVE.toArray(new Source[0]);
        }
        for (Source s : sources) {
            EndpointStatisticsEvent e = new EndpointStatisticsEvent();
            try {
                s.sample(e);
            } catch (RuntimeException ex) {
                // a sample races with close; the next period samples what is still live
                continue;
            }
            e.commit();
        }
    }
}
