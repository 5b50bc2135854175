package io.jfabric.provider.tcp;

import java.io.IOException;

/**
 * One connection's transmit side, libfabric tcp's tx queue, priority queue, need-ack queue and rma-read queue:
 * the pool of {@link TxEntry}s, the frames waiting for the socket (the provider's own ACKs and read responses
 * first), and the sent operations that still wait for their ACK or read response.
 *
 * <p>Not thread-safe: every method runs under the owning endpoint's lock.
 */
final class TcpTxQueue {
    /** Internal entries (ACKs, read responses) kept out of the application's transmit budget. */
    private static final int INTERNAL_RESERVE = 64;

    private final TcpConnection conn;
    private final ConnectionListener listener;
    private final ViewCache viewCache;

    private TxEntry txCur;
    private TxEntry prioHead;
    private TxEntry prioTail;
    private TxEntry txHead;
    private TxEntry txTail;
    private TxEntry ackHead;
    private TxEntry ackTail;
    private TxEntry readHead;
    private TxEntry readTail;
    private TxEntry txFree;
    private int txFreeCount;
    private final int txEntries;

    TcpTxQueue(TcpConnection conn, ConnectionListener listener, ViewCache viewCache, int txSize) {
        this.conn = conn;
        this.listener = listener;
        this.viewCache = viewCache;
        // entries are built on first use and recycled after: a connection that carries little (one of
        // thousands an rxm endpoint accepts) costs a few entries, not tx_size of them
        this.txFreeCount = txSize + INTERNAL_RESERVE;
        this.txEntries = txFreeCount;
    }

    /** Entries taken (queued, being written, waiting for an ACK or a read response); a racy read is fine. */
    int inFlight() {
        return txEntries - txFreeCount;
    }

    // =================================================================== the pool

    /** A free transmit entry for the application, or null when its queue is full (-EAGAIN). */
    TxEntry take() {
        if (txFreeCount <= INTERNAL_RESERVE) {
            return null;
        }
        return popFree();
    }

    /** A free entry for an ACK or read response, from the reserve the application cannot use up. */
    TxEntry takeInternal() {
        return txFreeCount == 0 ? null : popFree();
    }

    private TxEntry popFree() {
        TxEntry e = txFree;
        if (e == null) {
            e = new TxEntry(viewCache); // not built yet: txFreeCount counts it
        } else {
            txFree = e.next;
            e.next = null;
        }
        txFreeCount--;
        return e;
    }

    void release(TxEntry e) {
        e.reset();
        e.next = txFree;
        txFree = e;
        txFreeCount++;
    }

    // =================================================================== queueing and writing

    /** Queues a filled application entry behind the others. */
    void enqueue(TxEntry e) {
        if (txTail == null) {
            txHead = e;
        } else {
            txTail.next = e;
        }
        txTail = e;
    }

    /** Queues an ACK or read response ahead of the application's frames. */
    void enqueueInternal(TxEntry e) {
        if (prioTail == null) {
            prioHead = e;
        } else {
            prioTail.next = e;
        }
        prioTail = e;
    }

    /**
     * Writes queued frames until the socket is full or the queues are empty; returns the frames finished. When
     * several frames wait (the socket pushed back, or a receive queued ACKs), the small ones are copied into
     * one staging buffer and leave in one write, as libfabric's bsock send queue does: a window of injects
     * behind a full socket costs one system call, not one each.
     */
    int progress() throws IOException {
        int work = 0;
        while (conn.isOpen()) {
            TxEntry e = txCur;
            if (e == null) {
                e = pollQueued();
                if (e == null) {
                    conn.writesDrained();
                    return work;
                }
                txCur = e;
                if (!batch(e)) {
                    conn.stageIfSmall(e);
                }
            }
            if (!conn.write(e)) {
                return work;
            }
            txCur = null;
            TxEntry b = e.batched;
            e.batched = null;
            work++;
            sent(e);
            for (; b != null; work++) {
                TxEntry nextInBatch = b.batched;
                b.batched = null;
                sent(b);
                b = nextInBatch;
            }
        }
        return work;
    }

    /** The next frame to write: the provider's own ACKs and read responses first; null when none waits. */
    private TxEntry pollQueued() {
        TxEntry e;
        if ((e = prioHead) != null) {
            prioHead = e.next;
            prioTail = prioHead == null ? null : prioTail;
        } else if ((e = txHead) != null) {
            txHead = e.next;
            txTail = txHead == null ? null : txTail;
        } else {
            return null;
        }
        e.next = null;
        return e;
    }

    /** The frame {@link #pollQueued} would return next, left queued. */
    private TxEntry peekQueued() {
        return prioHead != null ? prioHead : txHead;
    }

    /**
     * Stages {@code first} and the queued frames after it that fit, in queue order, chained on
     * {@link TxEntry#batched}; false (nothing changed) when no other frame waits or the next does not fit.
     */
    private boolean batch(TxEntry first) {
        TxEntry e = peekQueued();
        if (e == null || first.remaining + e.remaining > conn.batchCapacity()) {
            return false;
        }
        conn.beginBatch(first);
        TxEntry last = first;
        while (e != null && conn.addToBatch(e)) {
            pollQueued();
            last.batched = e;
            last = e;
            e = peekQueued();
        }
        conn.endBatch(first);
        return true;
    }

    private void sent(TxEntry e) {
        if (e.kind == TxEntry.KIND_READ) {
            if (readTail == null) {
                readHead = e;
            } else {
                readTail.next = e;
            }
            readTail = e;
        } else if (e.needAck) {
            if (ackTail == null) {
                ackHead = e;
            } else {
                ackTail.next = e;
            }
            ackTail = e;
        } else if (e.kind == TxEntry.KIND_INTERNAL) {
            release(e);
        } else {
            listener.txDone(e);
            release(e);
        }
    }

    /** True when something could move without the socket (queued frames not yet tried). */
    boolean hasPending() {
        return txCur != null || txHead != null || prioHead != null;
    }

    /** Frames are queued and none is half written: worth another write pass now. */
    boolean hasQueued() {
        return (prioHead != null || txHead != null) && txCur == null;
    }

    /** Nothing queued and nothing half written: a progress call would have nothing to send. */
    boolean idle() {
        return txCur == null && prioHead == null && txHead == null;
    }

    // =================================================================== waiting for the peer

    /** The oldest sent operation waiting for an ACK, unlinked; null when none waits (a protocol error). */
    TxEntry takeAcked() {
        TxEntry e = ackHead;
        if (e == null) {
            return null;
        }
        ackHead = e.next;
        if (ackHead == null) {
            ackTail = null;
        }
        e.next = null;
        return e;
    }

    /** The oldest read waiting for its response, left queued until the response has landed; null when none. */
    TxEntry oldestRead() {
        return readHead;
    }

    /** Unlinks {@link #oldestRead()} once its response has landed. */
    TxEntry takeRead() {
        TxEntry rd = readHead;
        readHead = rd.next;
        if (readHead == null) {
            readTail = null;
        }
        rd.next = null;
        return rd;
    }

    // =================================================================== failure

    /** Fails every queued, half-written and waiting operation with {@code err}; returns how many were the application's. */
    int flush(int err) {
        int n = 0;
        if (txCur != null) {
            TxEntry e = txCur;
            txCur = null;
            while (e != null) {
                TxEntry nextInBatch = e.batched;
                e.batched = null;
                n += fail(e, err);
                e = nextInBatch;
            }
        }
        n += flushList(prioHead, err);
        prioHead = prioTail = null;
        n += flushList(txHead, err);
        txHead = txTail = null;
        n += flushList(ackHead, err);
        ackHead = ackTail = null;
        n += flushList(readHead, err);
        readHead = readTail = null;
        return n;
    }

    private int flushList(TxEntry head, int err) {
        int n = 0;
        while (head != null) {
            TxEntry next = head.next;
            head.next = null;
            n += fail(head, err);
            head = next;
        }
        return n;
    }

    /** Fails one entry; 1 when it was the application's operation, 0 for an internal one (an ACK, a read response). */
    private int fail(TxEntry e, int err) {
        boolean own = e.kind != TxEntry.KIND_INTERNAL;
        if (own) {
            listener.txFailed(e, err);
        }
        release(e);
        return own ? 1 : 0;
    }

    /** Short state dump for test failure messages. */
    String describe() {
        return "waitingAck=" + count(ackHead) + ", reads=" + count(readHead) + ", txFree=" + txFreeCount
                + ", txBusy=" + hasPending();
    }

    private static int count(TxEntry e) {
        int n = 0;
        for (; e != null; e = e.next) {
            n++;
        }
        return n;
    }
}
