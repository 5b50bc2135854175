package io.jfabric.provider.shm;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.Fabrics;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * The second JVM of the two-process tests. Prints "ADDR &lt;name&gt;" once its endpoint is up, then:
 * <ul>
 * <li>{@code send <parent> <count> <rmaAddr> <rmaKey>}: sends count tagged messages of mixed sizes
 * (tag = index, content = {@link #pattern}), RMA-writes a 64 KiB pattern to the parent's region and
 * reads it back, sends tag {@link #DONE} with "ok" or a failure text, waits for tag {@link #BYE}, exits 0;</li>
 * <li>{@code stream <parent>}: sends tagged messages of mixed sizes for up to 20 s (killed by the test);</li>
 * <li>{@code waitclose <parent>}: posts a 200 KB send the parent never receives, drives progress for 200 ms, prints
 * "POSTED", and waits in sread for its completion for up to 20 s, then prints "DONE &lt;err&gt;" (the completion's
 * error, 0 if none) or "TIMEOUT".</li>
 * </ul>
 */
public final class ShmPeerMain {

    static final long DONE = 1L << 40;
    static final long BYE = 1L << 41;
    static final int[] SIZES = {8, 1000, 5000, 20_000, 300_000, 64};

    /** Sends the "burst" sender keeps in flight. */
    static final int BURST_WINDOW = 8;

    static int sizeOf(long i) {
        return SIZES[(int) (i % SIZES.length)];
    }

    static void pattern(MemorySegment s, long seed) {
        ShmEndpointTest.fill(s, seed);
    }

    public static void main(String[] args) throws Exception {
        try (ShmNode node = new ShmNode(); Arena arena = Arena.ofShared()) {
            long parent = node.av.insert(args[1].getBytes(StandardCharsets.US_ASCII));
            System.out.println("ADDR " + new String(node.name(), StandardCharsets.US_ASCII));
            System.out.flush();
            MemorySegment buf = arena.allocate(300_000);
            CqEntry e = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            if (args[0].equals("idle")) {
                // posts nothing and waits to be killed (bounded, in case the test dies first)
                Thread.sleep(30_000);
                return;
            }
            if (args[0].equals("waitclose")) {
                check(node.ep.tsend(buf.asSlice(0, 200_000), null, parent, 1, "in flight"), "tsend");
                // progress long enough for the first liveness scan (due at once) to pass while the parent is open
                node.progressFor(200);
                System.out.println("POSTED");
                System.out.flush();
                CqEntry[] one = {e};
                long deadline = System.nanoTime() + 20_000_000_000L;
                while (System.nanoTime() < deadline) {
                    int rc = node.cq.sread(one, 1, 1000);
                    if (rc == 1 || rc == -Errno.EAVAIL) {
                        if (rc == -Errno.EAVAIL) {
                            node.cq.readError(err, 0);
                        }
                        System.out.println("DONE " + (rc == 1 ? 0 : err.err));
                        return;
                    }
                }
                System.out.println("TIMEOUT");
                return;
            }
            if (args[0].equals("burst")) {
                long count = Long.parseLong(args[2]);
                long id = Long.parseLong(args[3]);
                // a window of sends in flight, each from its own buffer (reused only after its completion),
                // as a real streaming sender does: the sender fills the next while the receiver verifies
                int window = BURST_WINDOW;
                MemorySegment[] bufs = new MemorySegment[window];
                Integer[] ctx = new Integer[window];
                int[] free = new int[window];
                for (int b = 0; b < window; b++) {
                    bufs[b] = arena.allocate(300_000);
                    ctx[b] = b;
                    free[b] = b;
                }
                int freeCount = window;
                CqEntry[] one = {e};
                for (long i = 0; i < count || freeCount < window; ) {
                    if (i < count && freeCount > 0) {
                        int b = free[--freeCount];
                        MemorySegment m = bufs[b].asSlice(0, sizeOf(i));
                        pattern(m, id * 1_000_000 + i);
                        int rc;
                        while ((rc = node.ep.tsend(m, null, parent, (id << 32) | i, ctx[b])) == -Errno.EAGAIN) {
                            node.cq.read(new CqEntry[0], 0);
                        }
                        check(rc, "tsend");
                        i++;
                        continue;
                    }
                    int rc = node.cq.read(one, 1);
                    if (rc == 1) {
                        free[freeCount++] = (Integer) e.context;
                    } else if (rc == -Errno.EAVAIL) {
                        node.cq.readError(err, 0);
                        throw new IllegalStateException("send failed: " + err.err);
                    }
                }
                System.exit(0);
            }
            if (args[0].equals("stream")) {
                long deadline = System.nanoTime() + 20_000_000_000L;
                for (long i = 0; System.nanoTime() < deadline; i++) {
                    MemorySegment m = buf.asSlice(0, sizeOf(i));
                    pattern(m, i);
                    send(node, m, parent, i, e, err);
                }
                return;
            }
            long count = Long.parseLong(args[2]);
            for (long i = 0; i < count; i++) {
                MemorySegment m = buf.asSlice(0, sizeOf(i));
                pattern(m, i);
                send(node, m, parent, i, e, err);
            }
            String verdict = rma(node, arena, parent, Long.parseLong(args[3]), Long.parseLong(args[4]), e, err);
            send(node, arena.allocateFrom(verdict), parent, DONE, e, err);
            MemorySegment bye = arena.allocate(16);
            check(node.ep.trecv(bye, null, Fabrics.ADDR_UNSPEC, BYE, 0, "bye"), "trecv bye");
            if (node.next(e, err, 20_000) != 1) {
                System.exit(3);
            }
        }
        System.exit(0);
    }

    private static String rma(ShmNode node, Arena arena, long parent, long addr, long key, CqEntry e, CqErrEntry err) {
        MemorySegment out = arena.allocate(65536);
        pattern(out, 77);
        check(node.ep.write(out, null, parent, addr, key, "w"), "write");
        if (node.next(e, err, 10_000) != 1) {
            return "rma write failed: " + err.err;
        }
        MemorySegment back = arena.allocate(65536);
        check(node.ep.read(back, null, parent, addr, key, "r"), "read");
        if (node.next(e, err, 10_000) != 1) {
            return "rma read failed: " + err.err;
        }
        return back.mismatch(out) == -1 ? "ok" : "rma read returned other bytes";
    }

    /** Sends and waits for the send's completion, retrying EAGAIN while driving progress. */
    static void send(ShmNode node, MemorySegment m, long dest, long tag, CqEntry e, CqErrEntry err) {
        int rc;
        while ((rc = node.ep.tsend(m, null, dest, tag, "s")) == -Errno.EAGAIN) {
            node.cq.read(new CqEntry[0], 0);
        }
        check(rc, "tsend");
        if (node.next(e, err, 20_000) != 1) {
            throw new IllegalStateException("send " + tag + " did not complete: " + err.err);
        }
    }

    static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " returned " + rc);
        }
    }
}
