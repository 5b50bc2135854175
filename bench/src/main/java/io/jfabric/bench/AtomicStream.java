package io.jfabric.bench;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MemoryRegion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A steady stream of FI_SUM atomics on one INT64 of the receiver's memory, from the pair's sender, driven from one
 * thread: up to {@link MessageStream#WINDOW} in flight, plain (fi_atomic) or fetching (fi_fetch_atomic). The
 * receiver's CQ is read only to drive its progress, which applies the operations on providers with manual
 * progress. Everything is allocated up front, so whatever allocation a measured run shows belongs to the provider.
 * Each operand is 1, so the target's final value is the number of completed operations, which {@link #run} checks.
 */
public final class AtomicStream {
    private static final long STALL_NANOS = 10_000_000_000L;

    private final MessagePair p;
    private final boolean fetch;
    private final MemorySegment[] operands = new MemorySegment[MessageStream.WINDOW];
    private final MemorySegment[] results = new MemorySegment[MessageStream.WINDOW];
    private final Integer[] contexts = new Integer[MessageStream.WINDOW];
    private final CqEntry[] entries = CqEntry.array(MessageStream.WINDOW);
    private final CqErrEntry err = new CqErrEntry();
    private final MemorySegment target;
    private final MemoryRegion targetMr;
    private final long targetAddr;
    private long completed;
    private int nextSlot;
    private int outstanding;

    public AtomicStream(MessagePair pair, boolean fetch) {
        this.p = pair;
        this.fetch = fetch;
        for (int i = 0; i < MessageStream.WINDOW; i++) {
            operands[i] = pair.senderBuf.asSlice(i * 16L, 8);
            operands[i].set(ValueLayout.JAVA_LONG, 0, 1);
            results[i] = pair.senderBuf.asSlice(i * 16L + 8, 8);
            contexts[i] = i; // Integer cache: no allocation when used as a context
        }
        target = pair.allocate(8);
        targetMr = pair.registerTarget(target);
        targetAddr = pair.targetAddress(target);
    }

    /** Runs {@code count} atomics to completion. */
    public void run(long count, long deadlineNanos) {
        long posted = 0;
        long done = 0;
        long lastProgress = System.nanoTime();
        while (done < count) {
            while (outstanding < MessageStream.WINDOW && posted < count) {
                int slot = nextSlot;
                int rc = fetch
                        ? p.sender.fetchAtomic(operands[slot], p.senderMr, results[slot], p.senderMr, p.toReceiver,
                                targetAddr, targetMr.key(), AtomicDatatype.INT64, AtomicOp.SUM, contexts[slot])
                        : p.sender.atomic(operands[slot], p.senderMr, p.toReceiver, targetAddr, targetMr.key(),
                                AtomicDatatype.INT64, AtomicOp.SUM, contexts[slot]);
                if (rc == -Errno.EAGAIN) {
                    break;
                }
                if (rc < 0) {
                    throw new FabricException(-rc, "atomic failed: " + Errno.name(-rc));
                }
                nextSlot = (slot + 1) % MessageStream.WINDOW;
                outstanding++;
                posted++;
            }
            int n = p.senderTx.read(entries, entries.length);
            if (n == -Errno.EAVAIL) {
                p.senderTx.readError(err, 0);
                throw new FabricException(err.err, "atomic completed with error " + Errno.name(err.err));
            }
            int r = p.receiverRx.read(entries, 0); // the target's progress: no receive is posted
            if (r > 0 || r == -Errno.EAVAIL) {
                throw new FabricException(Errno.EOTHER, "the target's receive CQ answered " + r + " with no receive posted");
            }
            long now = System.nanoTime();
            if (n > 0) {
                outstanding -= n;
                done += n;
                lastProgress = now;
            } else if (now - lastProgress > STALL_NANOS) {
                throw new FabricException(Errno.ETIMEDOUT, "atomic stream stalled: " + done + " of " + count
                        + " completed, " + outstanding + " in flight");
            }
            if (now - deadlineNanos > 0) {
                throw new FabricException(Errno.ETIMEDOUT, "too slow for the test's time budget: " + done + " of "
                        + count + " atomics completed (is the machine heavily loaded?)");
            }
        }
        completed += done;
        long value = target.get(ValueLayout.JAVA_LONG, 0);
        if (value != completed) {
            throw new FabricException(Errno.EOTHER, "the target holds " + value + " after " + completed + " FI_SUM of 1");
        }
    }
}
