package io.jfabric.provider.tcp;

import java.util.Arrays;

/**
 * The objects a queue drives when it is read. Kept as an array swapped on change so that a read iterates
 * without allocating or locking.
 */
final class ProgressList {
    private volatile Progressable[] items = new Progressable[0];

    synchronized void add(Progressable p) {
        Progressable[] a = Arrays.copyOf(items, items.length + 1);
        a[a.length - 1] = p;
        items = a;
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

    int progressData() {
        Progressable[] a = items;
        int work = 0;
        for (Progressable p : a) {
            work += p.progressData();
        }
        return work;
    }

    int progressAll() {
        Progressable[] a = items;
        int work = 0;
        for (Progressable p : a) {
            work += p.progressControl();
            work += p.progressData();
        }
        return work;
    }
}
