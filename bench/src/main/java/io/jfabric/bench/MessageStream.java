package io.jfabric.bench;

import io.jfabric.CompletionQueue;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.lang.foreign.MemorySegment;

/**
 * A steady stream of fixed-size messages from the pair's sender to its receiver, driven from one thread:
 * the receiver keeps {@link #WINDOW} receives posted, the sender keeps up to {@link #WINDOW} sends in
 * flight, and every completion re-arms its slot. Everything it uses is allocated up front, so whatever
 * allocation a measured run shows belongs to the provider.
 */
public final class MessageStream {
    public static final int WINDOW = 32;
    static final long TAG = 7;
    private static final long STALL_NANOS = 10_000_000_000L;

    private final MessagePair p;
    private final boolean tagged;
    private final MemorySegment[] txSlots = new MemorySegment[WINDOW];
    private final MemorySegment[] rxSlots = new MemorySegment[WINDOW];
    private final Integer[] contexts = new Integer[WINDOW];
    private final CqEntry[] entries = CqEntry.array(WINDOW);
    private final CqErrEntry err = new CqErrEntry();
    private int nextTx;
    private int outstanding;

    public MessageStream(MessagePair pair, long size) {
        this.p = pair;
        this.tagged = pair.tagged();
        for (int i = 0; i < WINDOW; i++) {
            txSlots[i] = pair.senderBuf.asSlice(i * size, size);
            rxSlots[i] = pair.receiverBuf.asSlice(i * size, size);
            contexts[i] = i; // Integer cache: -128..127, no allocation when used as a context
        }
        for (int i = 0; i < WINDOW; i++) {
            postRecv(i);
        }
    }

    /** Sends and receives {@code count} messages; the receives stay posted for the next call. */
    public void run(long count, long deadlineNanos) {
        long sent = 0;
        long received = 0;
        long lastProgress = System.nanoTime();
        while (received < count) {
            while (outstanding < WINDOW && sent < count) {
                int slot = nextTx;
                int rc = tagged ? p.sender.tsend(txSlots[slot], p.senderMr, p.toReceiver, TAG, contexts[slot])
                        : p.sender.send(txSlots[slot], p.senderMr, p.toReceiver, contexts[slot]);
                if (rc == -Errno.EAGAIN) {
                    break;
                }
                check(rc, "send");
                nextTx = (slot + 1) % WINDOW;
                outstanding++;
                sent++;
            }
            int n = read(p.senderTx, "send");
            outstanding -= n;
            n = read(p.receiverRx, "receive");
            for (int k = 0; k < n; k++) {
                postRecv((Integer) entries[k].context);
            }
            received += n;
            long now = System.nanoTime();
            if (n > 0) {
                lastProgress = now;
            } else if (now - lastProgress > STALL_NANOS) {
                throw new FabricException(Errno.ETIMEDOUT, "stream stalled: nothing received for 10 s; " + received
                        + " of " + count + " messages received, " + outstanding + " sends in flight; sender: "
                        + p.sender + "; receiver: " + p.receiver);
            }
            if (now - deadlineNanos > 0) {
                throw new FabricException(Errno.ETIMEDOUT, "too slow for the test's time budget: " + received + " of "
                        + count + " messages received (is the machine heavily loaded?)");
            }
        }
        // let the last sends complete so the next run starts from a clean window
        while (outstanding > 0) {
            outstanding -= read(p.senderTx, "send");
            read(p.receiverRx, "receive (none expected)");
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new FabricException(Errno.ETIMEDOUT, outstanding + " sends never completed");
            }
        }
    }

    private void postRecv(int slot) {
        int rc;
        while (true) {
            if (p.receiverSrx != null) {
                rc = tagged ? p.receiverSrx.trecv(rxSlots[slot], p.receiverMr, p.toSender, TAG, 0, contexts[slot])
                        : p.receiverSrx.recv(rxSlots[slot], p.receiverMr, p.toSender, contexts[slot]);
            } else {
                rc = tagged ? p.receiver.trecv(rxSlots[slot], p.receiverMr, p.toSender, TAG, 0, contexts[slot])
                        : p.receiver.recv(rxSlots[slot], p.receiverMr, p.toSender, contexts[slot]);
            }
            if (rc != -Errno.EAGAIN) {
                break;
            }
            p.receiverRx.read(entries, 0);
        }
        check(rc, "recv");
    }

    private int read(CompletionQueue cq, String what) {
        int n = cq.read(entries, entries.length);
        if (n == -Errno.EAGAIN) {
            return 0;
        }
        if (n == -Errno.EAVAIL) {
            cq.readError(err, 0);
            throw new FabricException(err.err, what + " completed with error " + Errno.name(err.err));
        }
        if (n < 0) {
            throw new FabricException(-n, what + " CQ read failed: " + Errno.name(-n));
        }
        return n;
    }

    private static void check(int rc, String what) {
        if (rc < 0) {
            throw new FabricException(-rc, what + " failed: " + Errno.name(-rc));
        }
    }
}
