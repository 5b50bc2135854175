package io.jfabric.util;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** FdPoll over a pipe's read end: it sleeps its timeout, wakes for data and for a wakeup, and a wakeup sticks. */
@Timeout(30)
class FdPollTest {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle PIPE = handle("pipe", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle WRITE = handle("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private static MethodHandle handle(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), fd);
    }

    @Test
    void sleepsItsTimeoutWakesForDataAndForAWakeup() throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fds = arena.allocate(JAVA_INT, 2);
            assertEquals(0, (int) PIPE.invokeExact(fds));
            int readEnd = fds.getAtIndex(JAVA_INT, 0);
            int writeEnd = fds.getAtIndex(JAVA_INT, 1);
            try (FdPoll p = new FdPoll(readEnd)) {
                assertEquals(readEnd, p.fd());
                long start = System.nanoTime();
                assertFalse(p.poll(200), "nothing to read");
                assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(150),
                        "an idle poll lasts its timeout");

                p.wakeup(); // before the poll: the next one returns at once
                start = System.nanoTime();
                assertFalse(p.poll(5_000), "a wakeup is not data");
                assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2), "an earlier wakeup ends the poll");
                start = System.nanoTime();
                assertFalse(p.poll(100), "the wakeup was consumed");
                assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(50), "a consumed wakeup");

                CompletableFuture<Boolean> sleeper = CompletableFuture.supplyAsync(() -> p.poll(10_000));
                Thread.sleep(100);
                p.wakeup();
                assertFalse(sleeper.get(5, TimeUnit.SECONDS), "a wakeup from another thread ends a sleep");

                MemorySegment one = arena.allocate(JAVA_LONG);
                assertEquals(1L, (long) WRITE.invokeExact(writeEnd, one, 1L));
                assertTrue(p.poll(5_000), "the fd is readable");
            } finally {
                int a = (int) CLOSE.invokeExact(readEnd);
                int b = (int) CLOSE.invokeExact(writeEnd);
                assertEquals(0, a + b);
            }
        }
    }

    @Test
    void closeEndsASleepUnderWay() throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fds = arena.allocate(JAVA_INT, 2);
            assertEquals(0, (int) PIPE.invokeExact(fds));
            FdPoll p = new FdPoll(fds.getAtIndex(JAVA_INT, 0));
            CompletableFuture<Boolean> sleeper = CompletableFuture.supplyAsync(() -> p.poll(10_000));
            Thread.sleep(100);
            long start = System.nanoTime();
            p.close();
            assertFalse(sleeper.get(5, TimeUnit.SECONDS));
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "close waited for the whole sleep");
            assertFalse(p.poll(1_000), "a closed FdPoll does not sleep");
            p.wakeup(); // harmless after close
            int a = (int) CLOSE.invokeExact(fds.getAtIndex(JAVA_INT, 0));
            int b = (int) CLOSE.invokeExact(fds.getAtIndex(JAVA_INT, 1));
            assertEquals(0, a + b);
        }
    }
}
