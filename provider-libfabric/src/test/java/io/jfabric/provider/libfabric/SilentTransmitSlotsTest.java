package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Access;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.OpFlags;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * A send that writes no success completion (FI_SELECTIVE_COMPLETION, no FI_COMPLETION) gets no context slot:
 * libfabric never hands its context back, so a slot taken for it would never return. With 32 slots in the
 * domain, 200 such sends (plain and fi_sendmsg) all go out, and a send that asks for its completion afterwards
 * still gets a slot and its context back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SilentTransmitSlotsTest {
    private static final int SLOTS = 32;
    private static final int ROUNDS = 25;
    private static final int PER_ROUND = 8;

    @BeforeEach
    void fewSlots() {
        System.setProperty(LibfabricProvider.CONTEXT_SLOTS.propertyName(), Integer.toString(SLOTS));
    }

    @AfterEach
    void defaultSlots() {
        System.clearProperty(LibfabricProvider.CONTEXT_SLOTS.propertyName());
    }

    @ParameterizedTest
    @ValueSource(strings = {"libfabric:shm", "libfabric:tcp;ofi_rxm"})
    void silentSendsNeverUseUpTheContextSlots(String prov) {
        try (EndpointPair p = new EndpointPair(prov, Caps.MSG, BindFlags.SELECTIVE_COMPLETION);
             Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(64, 64);
            MemorySegment dst = arena.allocate(64 * PER_ROUND, 64);
            MemoryRegion mrSrc = p.domain.registerMemory(src, Access.SEND, 20);
            MemoryRegion mrDst = p.domain.registerMemory(dst, Access.RECV, 21);
            Msg m = new Msg(1);
            for (int round = 0; round < ROUNDS; round++) {
                for (int i = 0; i < PER_ROUND; i++) {
                    MemorySegment slot = dst.asSlice(64L * i, 64);
                    p.post(() -> p.b.recv(slot, mrDst, p.addrA, "rx"), "fi_recv");
                }
                for (int i = 0; i < PER_ROUND; i++) {
                    if (i % 2 == 0) {
                        p.post(() -> p.a.send(src, mrSrc, p.addrB, "silent"), "fi_send without FI_COMPLETION");
                    } else {
                        m.set(src, mrSrc, p.addrB, "silent msg");
                        p.post(() -> p.a.sendmsg(m, 0), "fi_sendmsg without FI_COMPLETION");
                    }
                }
                p.await(0, PER_ROUND);
                assertTrue(p.errA.isEmpty() && p.errB.isEmpty(), "no errors: " + p.errA + " " + p.errB);
                assertEquals(0, p.doneA.size(), "the sends report nothing: " + p.doneA);
                p.clear();
            }
            p.post(() -> p.b.recv(dst.asSlice(0, 64), mrDst, p.addrA, "rx"), "fi_recv");
            m.set(src, mrSrc, p.addrB, "wanted");
            p.post(() -> p.a.sendmsg(m, OpFlags.COMPLETION), "fi_sendmsg with FI_COMPLETION");
            p.await(1, 1);
            assertSame("wanted", p.doneA.get(0).context, "the send that asked reports with its context");
            mrSrc.close();
            mrDst.close();
        }
    }
}
