package io.jfabric.provider.shm;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Bytes the current thread allocates (HotSpot's ThreadMXBean). Looked up reflectively because the
 * tests compile inside the module, which does not read java.management; called through a bound
 * method handle with primitive types, so the probe itself allocates nothing.
 */
final class ThreadAllocations {
    private static final MethodHandle ALLOCATED;

    static {
        try {
            Object bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                    .invoke(null);
            Class<?> type = Class.forName("com.sun.management.ThreadMXBean");
            ALLOCATED = MethodHandles.publicLookup()
                    .findVirtual(type, "getThreadAllocatedBytes", MethodType.methodType(long.class, long.class))
                    .bindTo(bean);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private ThreadAllocations() {
    }

    static long now() {
        try {
            return (long) ALLOCATED.invokeExact(Thread.currentThread().threadId());
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The least bytes this thread allocates in any of {@code windows} runs of {@code rounds} rounds: one object per
     * round costs at least 16 B in every window, while one-off JVM work (a deoptimisation, class loading) lands in
     * some only.
     */
    static long leastPerWindow(Runnable round, int windows, int rounds) {
        long least = Long.MAX_VALUE;
        for (int w = 0; w < windows; w++) {
            long before = now();
            for (int i = 0; i < rounds; i++) {
                round.run();
            }
            least = Math.min(least, now() - before);
        }
        return least;
    }
}
