package io.jfabric.provider.tcp;

import java.util.Arrays;

/**
 * The objects a queue drives when it is read. Kept as an array swapped on change so that a read iterates
 * without allocating or locking. A CQ's list that drives {@link QuietSet#MIN_CONNECTIONS} or more objects asks
 * its {@link QuietSet} once per read which idle connections got something.
 */
final class ProgressList {
    private final boolean watchesIdle;
    private volatile Progressable[] items = new Progressable[0];
    private volatile QuietSet quiet;
    private boolean closed;

    /** A list that reads every connection directly (an EQ's, a counter's). */
    ProgressList() {
        this(false);
    }

    /** @param watchesIdle whether idle connections move to a {@link QuietSet} once the list is large (a CQ's) */
    ProgressList(boolean watchesIdle) {
        this.watchesIdle = watchesIdle;
    }

    synchronized void add(Progressable p) {
        Progressable[] a = Arrays.copyOf(items, items.length + 1);
        a[a.length - 1] = p;
        items = a;
        if (watchesIdle && !closed) {
            if (quiet == null && a.length >= QuietSet.MIN_CONNECTIONS) {
                quiet = QuietSet.open();
                if (quiet != null) {
                    for (Progressable m : a) {
                        m.watchIdleIn(quiet);
                    }
                }
            } else if (quiet != null) {
                p.watchIdleIn(quiet);
            }
        }
    }

    /** The queue closed (after the endpoints bound to it): its idle-connection set goes too. */
    synchronized void close() {
        closed = true;
        QuietSet q = quiet;
        quiet = null;
        if (q != null) {
            q.close();
        }
    }

    synchronized void remove(Progressable p) {
        Progressable[] a = items;
        for (int i = 0; i < a.length; i++) {
            if (a[i] == p) {
                Progressable[] b = new Progressable[a.length - 1];
                System.arraycopy(a, 0, b, 0, i);
                System.arraycopy(a, i + 1, b, i, a.length - i - 1);
                items = b;
                return;
            }
        }
    }

    int size() {
        return items.length;
    }

    /** Wakes the idle connections that got something, so that the loop over {@code items} reads them too. */
    private void pollQuiet() {
        QuietSet q = quiet;
        if (q != null) {
            q.poll();
        }
    }

    int progressData() {
        Progressable[] a = items;
        pollQuiet();
        int work = 0;
        for (Progressable p : a) {
            work += p.progressData();
        }
        return work;
    }

    int progressAll() {
        Progressable[] a = items;
        pollQuiet();
        int work = 0;
        for (Progressable p : a) {
            work += p.progressControl();
            work += p.progressData();
        }
        return work;
    }
}
