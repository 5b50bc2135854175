package io.jfabric.conformance;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.MsgOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/** FI_ORDER_SAS: 10,000 messages land in posting order, with a window of sends and receives in flight. */
@Timeout(90)
class OrderingTest {
    static final int COUNT = 10_000;
    static final long BOUND_MS = 60_000;

    @RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void tenThousandMessagesArriveInOrder(FabricCase c) {
        Gate.messaging(c);
        Gate.require((c.info().txAttr.msgOrder & MsgOrder.SAS) != 0 && (c.info().rxAttr.msgOrder & MsgOrder.SAS) != 0,
                c, "does not promise send-after-send ordering (FI_ORDER_SAS)");
        EndpointPair p = EndpointPair.open(c, dump);
        int window = (int) Math.min(64, Math.min(FabricCase.unsigned(c.info().txAttr.size),
                FabricCase.unsigned(c.info().rxAttr.size)));
        Integer[] slots = new Integer[window];
        for (int i = 0; i < window; i++) {
            slots[i] = i;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment rx = Mem.alloc(arena, 8L * window);
            MemorySegment tx = Mem.alloc(arena, 8L * window);
            MemoryRegion rxMr = p.b.desc(rx);
            MemoryRegion txMr = p.a.desc(tx);
            boolean[] txBusy = new boolean[window];
            for (int i = 0; i < window; i++) {
                int s = i;
                p.poller.post("fi_recv", () -> p.b.ep.recv(rx.asSlice(8L * s, 8), rxMr, Fabrics.ADDR_UNSPEC, slots[s]));
            }
            int sent = 0;
            int received = 0;
            int txFree = window;
            CqEntry e = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            long deadline = System.nanoTime() + Slow.ms(BOUND_MS) * 1_000_000L;
            while (received < COUNT) {
                if (System.nanoTime() > deadline) {
                    fail("only " + received + " of " + COUNT + " messages arrived (" + sent + " sent) in " + BOUND_MS + " ms");
                }
                // sender: fill free slots
                for (int s = 0; s < window && txFree > 0 && sent < COUNT; s++) {
                    if (txBusy[s]) {
                        continue;
                    }
                    tx.set(ValueLayout.JAVA_LONG_UNALIGNED, 8L * s, sent);
                    int rc = p.a.ep.send(tx.asSlice(8L * s, 8), txMr, p.a.peer, slots[s]);
                    if (rc == -Errno.EAGAIN) {
                        break;
                    }
                    assertEquals(0, rc, "fi_send of message " + sent);
                    txBusy[s] = true;
                    txFree--;
                    sent++;
                }
                int rc = p.a.txCq.read(e);
                if (rc == 1) {
                    txBusy[(Integer) e.context] = false;
                    txFree++;
                } else if (rc == -Errno.EAVAIL) {
                    p.a.txCq.readError(err, 0);
                    fail("send failed: " + err);
                }
                rc = p.b.rxCq.read(e);
                if (rc == 1) {
                    int s = (Integer) e.context;
                    assertEquals(received % window, s, "receives complete in the order they were posted");
                    long seq = rx.get(ValueLayout.JAVA_LONG_UNALIGNED, 8L * s);
                    if (seq != received) {
                        fail("message " + received + " arrived out of order: got message " + seq);
                    }
                    received++;
                    p.poller.post("fi_recv", () -> p.b.ep.recv(rx.asSlice(8L * s, 8), rxMr, Fabrics.ADDR_UNSPEC, slots[s]));
                } else if (rc == -Errno.EAVAIL) {
                    p.b.rxCq.readError(err, 0);
                    fail("receive failed: " + err);
                }
            }
            dump.note("sent " + sent + ", received " + received);
            assertEquals(COUNT, received);
        }
    }
}
