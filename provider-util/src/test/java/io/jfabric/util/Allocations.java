package io.jfabric.util;

import java.lang.reflect.Method;

/**
 * Measures bytes the current thread allocates, to check the data path allocates nothing once warm.
 * Reflection keeps the test compile free of java.management (tests compile inside the module).
 */
final class Allocations {
    private static final Object BEAN;
    private static final Method ALLOCATED;

    static {
        try {
            BEAN = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            ALLOCATED = Class.forName("com.sun.management.ThreadMXBean").getMethod("getThreadAllocatedBytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Allocations() {
    }

    static long bytesDuring(Runnable r) {
        long id = Thread.currentThread().threadId();
        long before = allocated(id);
        r.run();
        return allocated(id) - before;
    }

    private static long allocated(long id) {
        try {
            return (long) ALLOCATED.invoke(BEAN, id);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
