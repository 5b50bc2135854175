package io.jfabric.conformance.fault;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.conformance.EndpointPair;
import io.jfabric.conformance.FabricCase;
import io.jfabric.conformance.ForEachFabric;
import io.jfabric.conformance.Gate;
import io.jfabric.conformance.Side;
import io.jfabric.conformance.StateDump;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A sender that posts as fast as the provider takes its sends against a receiver that takes one message per
 * {@link #RECV_INTERVAL_NS}: the provider must push back (-FI_EAGAIN, sends that complete only as the receiver
 * drains) rather than buffer the difference, and every message arrives once, in order and intact. What is
 * buffered between the two is measured as the bytes of sends already completed but not yet received (the
 * provider's and the kernel's buffers together); it must stay below {@link #MAX_BUFFERED}, a fraction of the
 * bytes sent. Resident memory growth is noted in the state dump (it is too noisy to assert on: heap sizing, JIT).
 */
@Timeout(60)
class SlowReceiverTest {
    static final int COUNT = 2_000;
    static final long SIZE = 16 << 10;
    static final long RECV_INTERVAL_NS = 100_000;
    static final int RX_WINDOW = 4;
    static final int TX_WINDOW = 256;
    /** Bytes that may sit between sender and receiver: socket buffers, rings, a bounded unexpected pool. */
    static final long MAX_BUFFERED = 12L << 20;
    static final long BOUND_MS = 40_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void memoryStaysBoundedAndNothingIsLost(FabricCase c) throws Exception {
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        Side a = p.a;
        Side b = p.b;
        try (Arena arena = Arena.ofShared()) {
            FaultPeer.Stream tx = new FaultPeer.Stream(a, arena, TX_WINDOW, SIZE);
            FaultPeer.Stream rx = new FaultPeer.Stream(b, arena, RX_WINDOW, SIZE);
            for (int i = 0; i < RX_WINDOW; i++) {
                int slot = i;
                p.poller.post("fi_recv", () -> rx.recv(slot));
            }
            long startRss = residentBytes();
            long peakRss = startRss;
            CqEntry ok = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            int next = 0;
            int sent = 0;
            int got = 0;
            int eagain = 0;
            int maxBuffered = 0;
            long nextRecvAt = System.nanoTime();
            long deadline = PeerFailureTest.deadline(BOUND_MS);
            while (got < COUNT) {
                PeerFailureTest.checkDeadline(deadline, got + " of " + COUNT + " received, " + sent + " sends done");
                while (next < COUNT && next - sent < TX_WINDOW) {
                    int rc = tx.send(next, a.peer);
                    if (rc == -Errno.EAGAIN) {
                        eagain++;
                        break;
                    }
                    assertEquals(0, rc, "fi_send " + next);
                    next++;
                }
                int rc = a.txCq.read(ok);
                if (rc == 1) {
                    sent++;
                    maxBuffered = Math.max(maxBuffered, sent - got);
                } else if (rc == -Errno.EAVAIL) {
                    a.txCq.readError(err, 0);
                    fail("send failed: " + err);
                }
                if (System.nanoTime() - nextRecvAt >= 0) {
                    rc = b.rxCq.read(ok);
                    if (rc == 1) {
                        int slot = (int) ok.context;
                        assertNull(rx.check(slot, got, ok.len), "message " + got);
                        got++;
                        if ((got & 1023) == 0) {
                            peakRss = Math.max(peakRss, residentBytes());
                        }
                        if (got + RX_WINDOW <= COUNT) {
                            p.poller.post("fi_recv", () -> rx.recv(slot));
                        }
                        nextRecvAt = System.nanoTime() + RECV_INTERVAL_NS;
                    } else if (rc == -Errno.EAVAIL) {
                        b.rxCq.readError(err, 0);
                        fail("receive failed: " + err);
                    }
                } else {
                    p.poller.drive();
                }
            }
            while (sent < COUNT) {
                PeerFailureTest.checkDeadline(deadline, "the last sends' completions");
                if (p.poller.awaitCq(a.txCq, ok, err, 10) == 1) {
                    sent++;
                }
            }
            String measured = c.id() + ": resident growth " + ((peakRss - startRss) >> 10) + " KiB, " + eagain + " x -FI_EAGAIN, at most "
                    + maxBuffered + " messages completed at the sender and not yet received";
            dump.note(measured);
            System.out.println("[fault] slow receiver " + measured);
            assertTrue(maxBuffered * SIZE <= MAX_BUFFERED, maxBuffered + " messages (" + (maxBuffered * SIZE >> 10)
                    + " KiB) were completed at the sender but not yet received: the provider buffers for a slow"
                    + " receiver without bound (" + ((COUNT * SIZE) >> 20) + " MiB sent)");
        }
    }

    /** VmRSS of this process. */
    static long residentBytes() throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("VmRSS:")) {
                return Long.parseLong(l.replaceAll("\\D", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
