package io.jfabric.examples.rpc;

/**
 * FIFO of callbacks ready to run: Mercury's completion queue behind HG_Trigger. Intrusive (each item
 * is in it at most once), so it never allocates; callers hold the engine's lock when there is one.
 */
final class ReadyQueue {
    private Triggerable head;
    private Triggerable tail;
    private int size;

    void add(Triggerable t) {
        t.nextReady = null;
        if (tail == null) {
            head = t;
        } else {
            tail.nextReady = t;
        }
        tail = t;
        size++;
    }

    Triggerable poll() {
        Triggerable t = head;
        if (t != null) {
            head = t.nextReady;
            if (head == null) {
                tail = null;
            }
            t.nextReady = null;
            size--;
        }
        return t;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }
}
