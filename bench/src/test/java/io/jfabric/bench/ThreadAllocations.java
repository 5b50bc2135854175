package io.jfabric.bench;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Bytes allocated by the threads involved in a test: the test thread plus every thread started after
 * {@link #ThreadAllocations()} (the providers' progress and connection threads), read with
 * com.sun.management.ThreadMXBean#getThreadAllocatedBytes. Threads that existed before (JUnit's, the JVM's)
 * are left out so their unrelated work is not blamed on a provider.
 */
final class ThreadAllocations {
    private final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final Set<Long> preexisting = new HashSet<>();
    private final long self = Thread.currentThread().threadId();

    ThreadAllocations() {
        if (!mx.isThreadAllocatedMemorySupported()) {
            throw new IllegalStateException("this JVM cannot count allocated bytes per thread");
        }
        mx.setThreadAllocatedMemoryEnabled(true);
        for (long id : mx.getAllThreadIds()) {
            preexisting.add(id);
        }
    }

    /** Allocated bytes so far, per involved thread id. */
    Map<Long, Long> snapshot() {
        Map<Long, Long> m = new HashMap<>();
        long[] ids = mx.getAllThreadIds();
        long[] bytes = mx.getThreadAllocatedBytes(ids);
        for (int i = 0; i < ids.length; i++) {
            if ((ids[i] == self || !preexisting.contains(ids[i])) && bytes[i] >= 0) {
                m.put(ids[i], bytes[i]);
            }
        }
        return m;
    }

    /** Bytes allocated between two snapshots by the involved threads (a thread new since {@code before} counts from 0). */
    static long delta(Map<Long, Long> before, Map<Long, Long> after) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }

    /** "name=bytes" per involved thread between the snapshots, for failure messages. */
    String describe(Map<Long, Long> before, Map<Long, Long> after) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            long d = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            if (d != 0) {
                var info = mx.getThreadInfo(e.getKey());
                sb.append(info == null ? "#" + e.getKey() : info.getThreadName()).append('=').append(d).append(' ');
            }
        }
        return sb.toString().trim();
    }
}
