package io.jfabric.util;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** FdWatcher over eventfds the test makes readable: each action runs once, unwatched ones never, and the thread ends. */
@Timeout(30)
class FdWatcherTest {
    private final List<Integer> opened = new ArrayList<>();

    @AfterEach
    void closeEventFds() throws Throwable {
        for (int fd : opened) {
            int unused = (int) PollCalls.CLOSE.invokeExact(fd);
        }
    }

    @Test
    void eachActionRunsOnceWhenItsFdIsReadableAndTheThreadEndsWithTheLast() throws Throwable {
        FdWatcher watcher = new FdWatcher("fd-watcher-test");
        int first = eventFd();
        int second = eventFd();
        AtomicInteger firstRuns = new AtomicInteger();
        CountDownLatch firstRan = new CountDownLatch(1);
        CountDownLatch secondRan = new CountDownLatch(1);
        watcher.watch(first, () -> {
            firstRuns.incrementAndGet();
            firstRan.countDown();
        });
        watcher.watch(second, secondRan::countDown);
        assertTrue(watcher.running());

        signal(first);
        assertTrue(firstRan.await(10, TimeUnit.SECONDS), "the readable fd's action ran");
        // the first stays readable; the thread polls again (for the second) without running its action twice
        signal(second);
        assertTrue(secondRan.await(10, TimeUnit.SECONDS), "the second fd's action ran");
        assertEquals(1, firstRuns.get(), "an action runs once, then its fd is forgotten");

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (watcher.running() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertFalse(watcher.running(), "with nothing left to watch, the thread ends");
    }

    @Test
    void anUnwatchedFdNeverFiresAndTheLastUnwatchClosesTheThreadsEventFd() throws Throwable {
        long eventFdsBefore = openEventFds();
        FdWatcher watcher = new FdWatcher("fd-watcher-test");
        int dropped = eventFd();
        int kept = eventFd();
        AtomicInteger droppedRuns = new AtomicInteger();
        CountDownLatch keptRan = new CountDownLatch(1);
        FdWatcher.Watch w = watcher.watch(dropped, droppedRuns::incrementAndGet);
        watcher.watch(kept, keptRan::countDown);
        watcher.unwatch(w);
        signal(dropped);
        signal(kept);
        // by the time the kept fd's action has run, the thread has polled the readable dropped fd's number too
        assertTrue(keptRan.await(10, TimeUnit.SECONDS));
        assertEquals(0, droppedRuns.get(), "an unwatched fd's action never runs");

        FdWatcher.Watch last = watcher.watch(eventFd(), () -> { });
        watcher.unwatch(last);
        assertFalse(watcher.running(), "unwatching the last fd waits for the thread to end");
        assertEquals(eventFdsBefore + 3, openEventFds(), "only the test's three eventfds are open: the thread's is closed");
    }

    private int eventFd() {
        int fd = PollCalls.eventfd();
        assertTrue(fd >= 0, "eventfd(2)");
        opened.add(fd);
        return fd;
    }

    private static void signal(int fd) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = arena.allocate(JAVA_LONG);
            one.set(JAVA_LONG, 0, 1L);
            assertEquals(8L, (long) PollCalls.WRITE.invokeExact(fd, one, 8L));
        }
    }

    private static long openEventFds() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(p -> {
                try {
                    return Files.readSymbolicLink(p).toString().contains("eventfd");
                } catch (IOException gone) {
                    return false; // the listing's own descriptor
                }
            }).count();
        }
    }
}
