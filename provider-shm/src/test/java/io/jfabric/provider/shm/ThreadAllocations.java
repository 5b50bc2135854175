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
}
