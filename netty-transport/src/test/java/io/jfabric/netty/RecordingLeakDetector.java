package io.jfabric.netty;

import io.netty.util.ResourceLeakDetector;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Netty's leak detector, installed for this module's tests ({@code io.netty.customResourceLeakDetector} in the pom),
 * that keeps every leak it reports as well as logging it, so that {@link NoBufferLeaks} can fail the test class
 * that leaked instead of leaving a log line nobody reads. Reports are made whatever the log level, and every leak
 * is reported (Netty reports one leak per distinct record).
 */
public final class RecordingLeakDetector<T> extends ResourceLeakDetector<T> {
    /** The system property through which Netty's detector factory makes its detectors of this class. */
    static final String PROPERTY = "io.netty.customResourceLeakDetector";

    private static final List<RecordingLeakDetector<?>> DETECTORS = new CopyOnWriteArrayList<>();
    private static final Queue<String> REPORTS = new ConcurrentLinkedQueue<>();
    /** Set while a test leaks on purpose: its leaks are kept but not logged, so the build log shows real ones only. */
    private static volatile boolean expecting;

    /** Counts this detector's tracked objects, for their hints. */
    private final AtomicLong tracked = new AtomicLong();

    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
        DETECTORS.add(this);
    }

    /** Netty's factory looks this older signature up as well, and logs an error where it is missing. */
    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        this(resourceType, samplingInterval);
    }

    /**
     * Collects what the garbage collector has found unreleased so far: a few collections, each followed by a
     * forced track on every detector, which is when a detector reports what its reference queue holds.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static void collect() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            // the reference handler enqueues the collected trackers on its own thread; parked, not slept, so that
            // an interrupt left on the test thread cannot fail the check
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            for (long left; (left = until - System.nanoTime()) > 0; ) {
                LockSupport.parkNanos(left);
            }
            for (RecordingLeakDetector d : DETECTORS) {
                Object probe = new Object();
                d.trackForcibly(probe).close(probe);
            }
        }
    }

    /** Runs {@code test}, which leaks on purpose and reads the reports itself, without logging its leaks. */
    static void expectingLeaks(org.junit.jupiter.api.function.Executable test) throws Throwable {
        expecting = true;
        try {
            test.execute();
        } finally {
            expecting = false;
        }
    }

    /** The leaks reported since the last call, each with its resource type and records; clears them. */
    static List<String> takeReports() {
        List<String> taken = new ArrayList<>();
        for (String r; (r = REPORTS.poll()) != null; ) {
            taken.add(r);
        }
        return taken;
    }

    /** A number for each tracked object, so that Netty does not drop a leak whose stack matches an earlier one's. */
    @Override
    protected Object getInitialHint(String resourceType) {
        return resourceType + " #" + tracked.incrementAndGet();
    }

    @Override
    protected boolean needReport() {
        return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        REPORTS.add(resourceType + ":" + records);
        if (!expecting) {
            super.reportTracedLeak(resourceType, records);
        }
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        REPORTS.add(resourceType + ": (no records)");
        if (!expecting) {
            super.reportUntracedLeak(resourceType);
        }
    }
}
