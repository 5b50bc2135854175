package io.jfabric.conformance.fault;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * Whether any thread of this process spins: the CPU time every thread but the caller used over a window
 * in which the caller sleeps. A progress thread that polls a dead connection in a loop uses the whole
 * window; one that waits for readiness or sleeps between checks uses a few percent.
 */
final class ThreadCpu {
    private ThreadCpu() {
    }

    /** CPU time (ms) per thread name used by other threads during {@code windowMs}, for threads above {@code floorMs}. */
    static Map<String, Long> busyThreads(long windowMs, long floorMs) throws InterruptedException {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().threadId();
        Map<Long, Long> before = new HashMap<>();
        for (long id : mx.getAllThreadIds()) {
            before.put(id, mx.getThreadCpuTime(id));
        }
        Thread.sleep(windowMs);
        Map<String, Long> busy = new HashMap<>();
        for (long id : mx.getAllThreadIds()) {
            if (id == self) {
                continue;
            }
            long now = mx.getThreadCpuTime(id);
            long used = now - before.getOrDefault(id, 0L);
            var info = mx.getThreadInfo(id);
            if (now >= 0 && used / 1_000_000L > floorMs && info != null) {
                busy.merge(info.getThreadName(), used / 1_000_000L, Long::sum);
            }
        }
        return busy;
    }
}
