package io.jfabric.conformance.xmatrix;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.TaggedMsg;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.function.IntSupplier;

/**
 * The four steps of a cell on one {@link MatrixNode}: the target prepares (posts its receive, or fills or
 * clears its RMA area), the initiator posts, the target verifies what arrived, and the initiator collects its
 * completions (and checks the data a read brought). A step that cannot finish by its deadline throws, with
 * the state it waited in; an error completion throws with its errno and the provider's text.
 */
final class MatrixOps {
    static final int BURST = MatrixBurst.COUNT;
    private static final int BURST_LEN = MatrixBurst.LEN;
    private static final byte CLEAR = (byte) 0xEE;
    /** Room past the message in a receive buffer or RMA area, which must still be clear afterwards. */
    private static final int GUARD = 64;

    private final MatrixNode n;
    private final Object context = new Object();
    private final MatrixBurst burst;

    MatrixOps(MatrixNode node) {
        this.n = node;
        this.burst = new MatrixBurst(node, context);
    }

    /** Between steps: drives progress and posts what is left of a burst the target stalled. */
    void idle() {
        n.pump();
        burst.resume();
    }

    void prep(MatrixOp op, long size, long seed, long deadline) {
        n.rx.clear();
        MemorySegment buf = n.rxArea.asSlice(0, size + GUARD);
        switch (op) {
            case SEND, INJECT, SENDDATA, INJECTDATA, SENDV -> {
                buf.fill(CLEAR);
                post("fi_recv", () -> n.ep.recv(buf, n.mr, n.peer, context), deadline);
            }
            case TAGGED -> {
                buf.fill(CLEAR);
                post("fi_trecv", () -> n.ep.trecv(buf, n.mr, n.peer, seed, 0, context), deadline);
            }
            case MULTI_RECV -> {
                MemorySegment two = n.rxArea.asSlice(0, 2 * size);
                two.fill(CLEAR);
                Msg m = new Msg(1).set(two, n.mr, n.peer, context);
                post("fi_recvmsg(FI_MULTI_RECV)", () -> n.ep.recvmsg(m, OpFlags.MULTI_RECV), deadline);
            }
            case PEEK_CLAIM -> buf.fill(CLEAR); // the message arrives unexpected
            case READ -> fill(n.rmaArea.asSlice(0, size), seed);
            case WRITE, WRITEDATA, INJECT_WRITE -> n.rmaArea.asSlice(0, size + GUARD).fill(CLEAR);
            case WRITEDATA_BURST -> {
                n.rmaArea.asSlice(0, (long) BURST * BURST_LEN + GUARD).fill(CLEAR);
                n.holdRx = true;
            }
            case ATOMIC -> MatrixAtomics.prepTarget(n.rmaArea);
        }
    }

    void init(MatrixOp op, long size, long seed, long deadline) {
        n.tx.clear();
        MemorySegment src = n.txArea.asSlice(0, size);
        MemoryRegion mr = n.mr;
        long peer = n.peer;
        long ra = n.remoteAddr;
        long rk = n.remoteKey;
        if (op != MatrixOp.WRITEDATA_BURST && op != MatrixOp.MULTI_RECV && op != MatrixOp.ATOMIC) {
            fill(src, seed);
        }
        switch (op) {
            case SEND -> post("fi_send", () -> n.ep.send(src, mr, peer, context), deadline);
            case INJECT -> post("fi_inject", () -> n.ep.inject(src, peer), deadline);
            case SENDDATA -> post("fi_senddata", () -> n.ep.senddata(src, mr, seed, peer, context), deadline);
            case INJECTDATA -> post("fi_injectdata", () -> n.ep.injectdata(src, seed, peer), deadline);
            case SENDV -> {
                long half = size / 2;
                MemorySegment[] iov = half == 0 ? new MemorySegment[] {src}
                        : new MemorySegment[] {src.asSlice(0, half), src.asSlice(half)};
                MemoryRegion[] desc = {mr, mr};
                post("fi_sendv", () -> n.ep.sendv(iov, desc, iov.length, peer, context), deadline);
            }
            case TAGGED, PEEK_CLAIM -> post("fi_tsend", () -> n.ep.tsend(src, mr, peer, seed, context), deadline);
            case MULTI_RECV -> {
                for (int j = 0; j < 2; j++) {
                    MemorySegment m = n.txArea.asSlice(j * size, size);
                    fill(m, seed + j);
                    post("fi_send", () -> n.ep.send(m, mr, peer, context), deadline);
                }
            }
            case READ -> {
                MemorySegment dst = n.rxArea.asSlice(0, size + GUARD);
                dst.fill(CLEAR);
                post("fi_read", () -> n.ep.read(dst.asSlice(0, size), mr, peer, ra, rk, context), deadline);
            }
            case WRITE -> post("fi_write", () -> n.ep.write(src, mr, peer, ra, rk, context), deadline);
            case WRITEDATA -> post("fi_writedata", () -> n.ep.writedata(src, mr, seed, peer, ra, rk, context),
                    deadline);
            case INJECT_WRITE -> post("fi_inject_write", () -> n.ep.injectWrite(src, peer, ra, rk), deadline);
            case WRITEDATA_BURST -> burst.start(seed, deadline);
            case ATOMIC -> atomics(deadline);
        }
    }

    /** Every cell of {@link MatrixAtomics} in turn, each completed (and its completion checked) before the next. */
    private void atomics(long deadline) {
        MatrixAtomics.prepInitiator(n.txArea, n.rxArea);
        for (int i = 0; i < MatrixAtomics.CELLS.size(); i++) {
            MatrixAtomics.Cell cell = MatrixAtomics.CELLS.get(i);
            int slot = i;
            String what = cell.call();
            post(what, () -> cell.post(n.ep, n.txArea, n.rxArea, n.mr, n.peer, n.remoteAddr, n.remoteKey, slot,
                    context), deadline);
            MatrixNode.Completion c = next(n.tx, "the completion of " + what, deadline);
            if (c.err() != 0) {
                throw fail(what + " completed with " + c.error());
            }
        }
    }

    void verify(MatrixOp op, long size, long seed, long deadline) {
        switch (op) {
            case SEND, INJECT, SENDDATA, INJECTDATA, SENDV, TAGGED -> {
                MatrixNode.Completion c = next(n.rx, "the receive completion", deadline);
                checkRecv(c, op, size, seed);
                check(n.rxArea, size, seed, "received message");
            }
            case PEEK_CLAIM -> peekClaim(size, seed, deadline);
            case MULTI_RECV -> multiRecv(size, seed, deadline);
            case READ -> {
                // the initiator checks what it read
            }
            case WRITE, INJECT_WRITE -> awaitArea(size, seed, deadline);
            case WRITEDATA -> {
                MatrixNode.Completion c = next(n.rx, "the remote CQ data completion", deadline);
                expectFlags(c, OpFlags.REMOTE_CQ_DATA | OpFlags.REMOTE_WRITE);
                if (c.data() != seed) {
                    throw fail("remote CQ data " + c.data() + ", expected " + seed);
                }
                awaitArea(size, seed, deadline);
            }
            case ATOMIC -> {
                String wrong = MatrixAtomics.checkTarget(n.rmaArea);
                if (wrong != null) {
                    throw fail(wrong);
                }
            }
            case WRITEDATA_BURST -> {
                n.holdRx = false;
                BitSet seen = new BitSet(BURST);
                for (int j = 0; j < BURST; j++) {
                    MatrixNode.Completion c = next(n.rx, "remote CQ data completion " + j + " of " + BURST, deadline);
                    expectFlags(c, OpFlags.REMOTE_CQ_DATA);
                    long k = c.data() - seed;
                    if (k < 0 || k >= BURST || seen.get((int) k)) {
                        throw fail("unexpected or repeated remote CQ data " + c.data());
                    }
                    seen.set((int) k);
                }
                awaitArea((long) BURST * BURST_LEN, seed, deadline);
            }
        }
    }

    void finish(MatrixOp op, long size, long seed, long deadline) {
        if (op == MatrixOp.ATOMIC) {
            String wrong = MatrixAtomics.checkResults(n.rxArea);
            if (wrong != null) {
                throw fail(wrong);
            }
            return; // each atomic's completion was taken as it came
        }
        if (op == MatrixOp.WRITEDATA_BURST) {
            burst.complete(deadline);
        }
        int expected = op.inject ? 0 : op == MatrixOp.MULTI_RECV ? 2 : op == MatrixOp.WRITEDATA_BURST ? BURST : 1;
        for (int j = 0; j < expected; j++) {
            MatrixNode.Completion c = next(n.tx, "transmit completion " + (j + 1) + " of " + expected, deadline);
            if (c.err() != 0) {
                throw fail("transmit completed with " + c.error());
            }
            if (c.context() != context) {
                throw fail("transmit completion with a foreign context " + c.context());
            }
        }
        if (op == MatrixOp.READ) {
            check(n.rxArea, size, seed, "data read");
        }
    }

    private void peekClaim(long size, long seed, long deadline) {
        MemorySegment buf = n.rxArea.asSlice(0, size + GUARD);
        TaggedMsg m = new TaggedMsg(1);
        m.set(buf, n.mr, n.peer, context);
        m.tag = seed;
        while (true) {
            post("fi_trecvmsg(FI_PEEK|FI_CLAIM)", () -> n.ep.trecvmsg(m, OpFlags.PEEK | OpFlags.CLAIM), deadline);
            MatrixNode.Completion c = next(n.rx, "the FI_PEEK answer", deadline);
            if (c.err() == Errno.ENOMSG) {
                pumpUntil(System.nanoTime() + 1_000_000L, deadline);
                continue;
            }
            if (c.err() != 0) {
                throw fail("FI_PEEK completed with " + c.error());
            }
            if (c.len() != size || c.tag() != seed) {
                throw fail("FI_PEEK found len " + c.len() + " tag " + c.tag() + ", expected " + size + " / " + seed);
            }
            break;
        }
        post("fi_trecvmsg(FI_CLAIM)", () -> n.ep.trecvmsg(m, OpFlags.CLAIM), deadline);
        MatrixNode.Completion c = next(n.rx, "the FI_CLAIM receive", deadline);
        checkRecv(c, MatrixOp.TAGGED, size, seed);
        check(n.rxArea, size, seed, "claimed message");
    }

    private void multiRecv(long size, long seed, long deadline) {
        int messages = 0;
        boolean released = false;
        while (messages < 2 || !released) {
            MatrixNode.Completion c = next(n.rx, messages + " of 2 messages in, buffer released: " + released, deadline);
            if (c.err() != 0) {
                throw fail("multi-receive completed with " + c.error());
            }
            released |= (c.flags() & OpFlags.MULTI_RECV) != 0;
            if ((c.flags() & OpFlags.RECV) != 0) {
                if (c.len() != size) {
                    throw fail("multi-receive message of " + c.len() + " B, expected " + size);
                }
                long off = c.buf() == 0 ? messages * size : c.buf() - n.rxArea.address();
                if (off != messages * size) {
                    throw fail("message " + messages + " landed at offset " + off + ", expected " + messages * size);
                }
                messages++;
            }
        }
        check(n.rxArea.asSlice(0, size), size, seed, "first message");
        check(n.rxArea.asSlice(size, size), size, seed + 1, "second message");
    }

    private static void checkRecv(MatrixNode.Completion c, MatrixOp op, long size, long seed) {
        if (c.err() != 0) {
            throw fail("receive completed with " + c.error());
        }
        if (c.len() != size) {
            throw fail("receive of " + c.len() + " B, expected " + size);
        }
        expectFlags(c, OpFlags.RECV);
        if (op == MatrixOp.SENDDATA || op == MatrixOp.INJECTDATA) {
            expectFlags(c, OpFlags.REMOTE_CQ_DATA);
            if (c.data() != seed) {
                throw fail("CQ data " + c.data() + ", expected " + seed);
            }
        }
        if (op == MatrixOp.TAGGED && (c.tag() != seed || (c.flags() & OpFlags.TAGGED) == 0)) {
            throw fail("tagged receive with tag " + c.tag() + " flags " + OpFlags.toString(c.flags()));
        }
    }

    private static void expectFlags(MatrixNode.Completion c, long flags) {
        if (c.err() != 0) {
            throw fail("completed with " + c.error());
        }
        if ((c.flags() & flags) != flags) {
            throw fail("completion flags " + OpFlags.toString(c.flags()) + " lack " + OpFlags.toString(flags));
        }
    }

    /** Polls the RMA area until it holds the pattern: a write without CQ data gives its target no event. */
    private void awaitArea(long size, long seed, long deadline) {
        while (true) {
            n.pump();
            try {
                check(n.rmaArea, size, seed, "RMA area");
                return;
            } catch (FabricException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    private MatrixNode.Completion next(ArrayDeque<MatrixNode.Completion> q, String what, long deadline) {
        while (q.isEmpty()) {
            n.pump();
            if (q.isEmpty() && System.nanoTime() > deadline) {
                throw new FabricException(Errno.ETIMEDOUT, "timed out waiting for " + what);
            }
        }
        return q.poll();
    }

    private void pumpUntil(long until, long deadline) {
        while (System.nanoTime() < Math.min(until, deadline)) {
            n.pump();
        }
    }

    private void post(String what, IntSupplier op, long deadline) {
        while (true) {
            int rc = op.getAsInt();
            if (rc == 0) {
                return;
            }
            if (rc != -Errno.EAGAIN) {
                throw new FabricException(-rc, what + " returned " + Errno.name(-rc));
            }
            n.pump();
            if (System.nanoTime() > deadline) {
                throw new FabricException(Errno.ETIMEDOUT, what + " still returned FI_EAGAIN at the deadline");
            }
        }
    }

    static void fill(MemorySegment seg, long seed) {
        for (long i = 0; i < seg.byteSize(); i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, pattern(i, seed));
        }
    }

    /** The pattern over {@code size} bytes, then a clear guard byte (nothing written past the end). */
    private static void check(MemorySegment seg, long size, long seed, String what) {
        for (long i = 0; i < size; i++) {
            byte b = seg.get(ValueLayout.JAVA_BYTE, i);
            if (b != pattern(i, seed)) {
                throw fail(what + ": byte " + i + " of " + size + " is " + (b & 0xff) + ", expected "
                        + (pattern(i, seed) & 0xff));
            }
        }
        if (seg.byteSize() > size && seg.get(ValueLayout.JAVA_BYTE, size) != CLEAR) {
            throw fail(what + ": the byte after the " + size + " B was overwritten");
        }
    }

    private static byte pattern(long i, long seed) {
        return (byte) ((i * 7 + seed * 13) % 251);
    }

    private static FabricException fail(String why) {
        return new FabricException(Errno.EIO, why);
    }
}
