package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Access;
import io.jfabric.Caps;
import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * libfabric 1.17's rxd answers fi_send with 0 past tx_size outstanding sends and drops them
 * (src/test/c/thread_safe_posters.c). Through the bridge the send that would be dropped is refused with -FI_EAGAIN
 * (fi_msg(3)), and every send accepted completes and arrives once the peer takes it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RxdTransmitBudgetTest {
    private static final int TX_SIZE = 16;
    private static final int LEN = 1024;

    @Test
    void pastTxSizeOutstandingSendsAreRefusedWithEagainAndNoAcceptedSendIsLost() {
        try (EndpointPair p = new EndpointPair("libfabric:udp;ofi_rxd", Caps.MSG, 0, i -> {
                 i.txAttr.size = TX_SIZE;
                 i.txAttr.opFlags &= ~OpFlags.INJECT;
             });
             Arena arena = Arena.ofShared()) {
            MemorySegment out = arena.allocate((long) LEN * (4 * TX_SIZE), 64);
            MemorySegment in = arena.allocate((long) LEN * (4 * TX_SIZE), 64);
            try (MemoryRegion mrOut = p.domain.registerMemory(out, Access.SEND, 1);
                 MemoryRegion mrIn = p.domain.registerMemory(in, Access.RECV, 2)) {
                // nothing reads a CQ while posting, so no send can complete and give its entry back
                int accepted = 0;
                int rc = 0;
                while (accepted < 4 * TX_SIZE) {
                    MemorySegment m = out.asSlice((long) accepted * LEN, LEN);
                    m.set(ValueLayout.JAVA_INT, 0, accepted);
                    rc = p.a.send(m, mrOut, p.addrB, accepted);
                    if (rc != 0) {
                        break;
                    }
                    accepted++;
                }
                assertEquals(-Errno.EAGAIN, rc, "the send past tx_size outstanding: " + Errno.name(rc));
                assertTrue(accepted > 0 && accepted <= TX_SIZE, accepted + " sends accepted with tx_size " + TX_SIZE);
                for (int k = 0; k < accepted; k++) {
                    MemorySegment slot = in.asSlice((long) k * LEN, LEN);
                    p.post(() -> p.b.recv(slot, mrIn, Fabrics.ADDR_UNSPEC, "rx"), "fi_recv");
                }
                p.await(accepted, accepted);
                assertEquals(0, p.errA.size() + p.errB.size(), "no error completions: " + p.errA + " " + p.errB);
                Set<Integer> arrived = new HashSet<>();
                for (int k = 0; k < accepted; k++) {
                    arrived.add(in.get(ValueLayout.JAVA_INT, (long) k * LEN));
                }
                assertEquals(accepted, arrived.size(), "every accepted send arrived once: " + arrived);
                for (CqEntry e : p.doneA) {
                    assertTrue(e.context instanceof Integer i && i < accepted, "a send's own context: " + e.context);
                }
                // the completions read gave the budget back
                p.clear();
                MemorySegment slot = in.asSlice(0, LEN);
                p.post(() -> p.b.recv(slot, mrIn, Fabrics.ADDR_UNSPEC, "again"), "fi_recv");
                p.post(() -> p.a.send(out.asSlice(0, LEN), mrOut, p.addrB, "again"), "fi_send after the completions");
                p.await(1, 1);
            }
        }
    }
}
