package io.jfabric.conformance;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A peer process SIGKILLed while transfers to and from it are in flight: every posted operation completes
 * within {@link #BOUND_MS}, the ones the dead peer could not have taken with an error, and an MSG
 * endpoint also gets FI_SHUTDOWN (or an error event). The sends total 64 MiB, more than the kernel's
 * socket buffers on both ends hold, so on a stream transport the first sends may legitimately complete
 * (their bytes left for the peer's buffers) but the later ones cannot.
 */
@Timeout(120)
class PeerKilledTest {
    static final long BOUND_MS = 20_000;
    static final long T = 30_000;
    static final int SENDS = 4;
    static final int RECVS = 4;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void everyPostedOperationFailsWhenThePeerDies(FabricCase c) throws Exception {
        Gate.messaging(c);
        dump.caseUnderTest(c);
        PeerProcess peer = PeerProcess.start(c, "victim", dump);
        byte[] addr = peer.expectAddress(T);
        Poller poller = new Poller();
        Side me = new Side("survivor", c, dump);
        EndpointPair.openSide(me, c, dump, new EndpointPair.Options(), c.freshInfo(), poller);
        if (c.isMsg()) {
            me.ep.connect(addr, null);
            poller.expectEvent(me.eq, EqEvent.CONNECTED, T, "connect to the victim");
            peer.expect("CONNECTED", T);
        } else {
            me.peer = me.av.insert(addr);
            peer.send("PEER " + HexFormat.of().formatHex(me.ep.getName()));
            peer.expect("READY", T);
        }
        // big enough to need the receiver's co-operation (rendezvous, TCP window) so they stay in flight
        long size = Math.min(16 << 20, c.maxMsgSize());
        try (Arena arena = Arena.ofShared()) {
            MemorySegment tx = Mem.alloc(arena, size);
            MemorySegment rx = Mem.alloc(arena, 4096L * RECVS);
            MemoryRegion txMr = me.desc(tx);
            MemoryRegion rxMr = me.desc(rx);
            Mem.fill(tx, 1);
            Set<Object> pending = new HashSet<>();
            for (int i = 0; i < RECVS; i++) {
                String ctx = "recv-" + i;
                MemorySegment slot = rx.asSlice(4096L * i, 4096);
                poller.post("fi_recv", () -> me.ep.recv(slot, rxMr, Fabrics.ADDR_UNSPEC, ctx));
                pending.add(ctx);
            }
            int posted = 0;
            for (int i = 0; i < SENDS; i++) {
                String ctx = "send-" + i;
                // the first send may wait for an RDM connection (-FI_EAGAIN while it is set up); after that,
                // -FI_EAGAIN means the queue is full
                int rc = i == 0 ? poller.tryPost(() -> me.ep.send(tx, txMr, me.peer, ctx)) : me.ep.send(tx, txMr, me.peer, ctx);
                if (rc == -Errno.EAGAIN) {
                    break; // the queue is full already: what is posted is in flight
                }
                assertEquals(0, rc, "fi_send " + i);
                pending.add(ctx);
                posted++;
            }
            assertTrue(posted > 0, "at least one send in flight");
            // let the transfers start, then kill the peer in the middle of them
            long until = System.nanoTime() + 300_000_000L;
            while (System.nanoTime() < until) {
                poller.drive();
            }
            dump.note("killing peer " + peer.pid() + " with " + pending + " in flight");
            peer.kill();

            long deadline = System.nanoTime() + Slow.ms(BOUND_MS) * 1_000_000L;
            CqEntry ok = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            boolean shutdownSeen = !c.isMsg();
            EqEntry ev = new EqEntry();
            EqErrEntry eqErr = new EqErrEntry();
            boolean cancelled = false;
            int sendErrors = 0;
            int sendSuccesses = 0;
            while (!pending.isEmpty() || !shutdownSeen) {
                if (System.nanoTime() > deadline) {
                    fail(BOUND_MS + " ms after the peer died, still pending: " + pending
                            + (shutdownSeen ? "" : ", and no FI_SHUTDOWN or EQ error"));
                }
                for (var cq : new io.jfabric.CompletionQueue[] {me.txCq, me.rxCq}) {
                    int rc = cq.read(ok);
                    if (rc == 1) {
                        if (String.valueOf(ok.context).startsWith("send")) {
                            if (!c.isMsg() || sendErrors > 0) {
                                fail("a " + size + " B send completed successfully though the peer never posted a"
                                        + " receive" + (c.isMsg() ? " and an earlier send had failed: " : ": ") + ok);
                            }
                            sendSuccesses++;
                        }
                        if (String.valueOf(ok.context).startsWith("recv")) {
                            fail("a receive completed successfully though the victim sends nothing: " + ok);
                        }
                        pending.remove(ok.context);
                    } else if (rc == -Errno.EAVAIL) {
                        cq.readError(err, 0);
                        assertTrue(err.err != 0, "error completion carries an errno: " + err);
                        if (String.valueOf(err.context).startsWith("send")) {
                            sendErrors++;
                        }
                        pending.remove(err.context);
                    }
                }
                if (me.eq != null && !shutdownSeen) {
                    int rc = me.eq.read(ev, 0);
                    if (rc == EqEvent.SHUTDOWN) {
                        shutdownSeen = true;
                    } else if (rc == -Errno.EAVAIL) {
                        me.eq.readError(eqErr, 0);
                        shutdownSeen = true;
                    }
                }
                if (!c.isMsg() && !cancelled && pending.stream().allMatch(o -> String.valueOf(o).startsWith("recv"))) {
                    cancelled = true;
                    // connectionless receives from FI_ADDR_UNSPEC legitimately wait for any other peer;
                    // the application takes them back with fi_cancel
                    for (Object ctx : Set.copyOf(pending)) {
                        me.ep.cancel(ctx);
                    }
                }
                Thread.onSpinWait();
            }
            dump.note(sendSuccesses + " sends completed before the peer's buffers filled, " + sendErrors + " failed");
            assertTrue(sendErrors > 0, "of " + posted + " sends of " + size + " B to a peer that never received,"
                    + " none failed: " + sendSuccesses + " completed successfully");
        }
    }
}
