package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.Progress;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With FI_TCP_READ_PROBE on, a CQ read that spins on an idle connection asks whether data came instead of
 * reading; data, and only data, still gets read. Off (the default: on a busy connection one recv per poll is
 * one system call where probe and recv are two), polls read, except that the poll right after a short read
 * (the socket was empty a moment ago) skips it: an idle connection is read every other poll.
 */
@Timeout(30)
class ReadProbeTest extends ParameterLoopbackTest {
    private static final String PROP = "jfabric.tcp.read_probe";
    private static final int POLLS = 5000;
    @Override
    String property() {
        return PROP;
    }

    private static long reads(Loopback.Side side) {
        return ((TcpEndpoint) side.ep).connection().socketReads();
    }

    /** Polls the client's CQ {@code n} times; every read must find it empty. */
    private static void spin(Loopback.Side side, int n) {
        CqEntry e = new CqEntry();
        for (int i = 0; i < n; i++) {
            assertEquals(-Errno.EAGAIN, side.cq.read(e));
        }
    }

    @Test
    void idlePollsReadNothingAndAMessageAfterThemArrives() {
        System.setProperty(PROP, "true");
        pair = new Loopback(false, Progress.MANUAL, null, null);
        spin(pair.client, 10); // settles the read that follows connection set-up
        long before = reads(pair.client);
        spin(pair.client, POLLS);
        assertEquals(before, reads(pair.client), "an idle poll read the socket");

        MemorySegment rx = arena.allocate(64);
        MemorySegment tx = arena.allocate(64).fill((byte) 7);
        assertEquals(0, pair.client.ep.recv(rx, null, 0, "rx"));
        assertEquals(0, pair.server.ep.send(tx, null, 0, "tx"));
        CqEntry got = pair.client.waitCq(10_000);
        assertEquals("rx", got.context);
        assertEquals(-1, rx.mismatch(tx));
        long used = reads(pair.client) - before;
        assertTrue(used >= 1 && used <= 2, "a 64 B message took " + used + " reads");
    }

    @Test
    void withTheProbeOffEveryOtherIdlePollReads() {
        System.setProperty(PROP, "false");
        pair = new Loopback(false, Progress.MANUAL, null, null);
        long before = reads(pair.client);
        spin(pair.client, POLLS);
        long reads = reads(pair.client) - before;
        assertTrue(reads >= POLLS / 2 && reads <= POLLS / 2 + 1,
                POLLS + " idle polls with the probe off made " + reads + " reads, not one per two polls");
    }
}
