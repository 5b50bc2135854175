package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Access;
import io.jfabric.Caps;
import io.jfabric.Errno;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.OpFlags;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * libfabric 1.17's rxd writes a message that does not fit what is left of an FI_MULTI_RECV buffer past the buffer's
 * end, into the heap, and in time crashes the process (src/test/c/multi_recv_overrun.c). The bridge withholds
 * FI_MULTI_RECV from rxd: its infos do not offer it, hints asking for it match no rxd info, and a receive posted with
 * the flag is refused with FI_EBADFLAGS, so that an application sees an error instead of a corrupted heap.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RxdMultiRecvWithheldTest {
    private static final String RXD = "libfabric:udp;ofi_rxd";
    private final LibfabricProvider provider = new LibfabricProvider();

    private List<FabricInfo> infos(String prov, long caps) {
        Hints h = Hints.create().provider(prov);
        if (caps != 0) {
            h.caps(caps);
        }
        return provider.getInfo(Fabrics.API_VERSION, null, null, 0, h.build());
    }

    @Test
    void rxdInfosDoNotOfferMultiRecvAndHintsAskingItMatchNoRxdInfo() {
        List<FabricInfo> all = infos(RXD, 0);
        assertFalse(all.isEmpty(), "libfabric:udp;ofi_rxd is installed here");
        for (FabricInfo i : all) {
            String what = i.providerName() + " " + Caps.toString(i.caps);
            assertEquals(0, i.caps & Caps.MULTI_RECV, what);
            assertEquals(0, i.rxAttr.caps & Caps.MULTI_RECV, what);
            assertEquals(0, i.rxAttr.opFlags & OpFlags.MULTI_RECV, "rx op_flags " + OpFlags.toString(i.rxAttr.opFlags));
        }
        assertTrue(infos(RXD, Caps.MSG | Caps.MULTI_RECV).isEmpty(), "hints asking FI_MULTI_RECV match no rxd info");
        List<FabricInfo> rxm = infos("libfabric:tcp;ofi_rxm", Caps.MSG | Caps.MULTI_RECV);
        assertFalse(rxm.isEmpty(), "tcp;ofi_rxm keeps its FI_MULTI_RECV");
        assertTrue((rxm.getFirst().caps & Caps.MULTI_RECV) != 0, Caps.toString(rxm.getFirst().caps));
    }

    @Test
    void aMultiReceiveIsRefusedAndPlainReceivesTakeOneMessageEach() {
        try (EndpointPair p = new EndpointPair(RXD, Caps.MSG); Arena arena = Arena.ofShared()) {
            MemorySegment big = arena.allocate(1024, 64);
            MemorySegment second = arena.allocate(1024, 64);
            MemorySegment out = arena.allocate(600, 64);
            out.fill((byte) 'a');
            try (MemoryRegion mrBig = p.domain.registerMemory(big, Access.RECV, 1);
                 MemoryRegion mrSecond = p.domain.registerMemory(second, Access.RECV, 2);
                 MemoryRegion mrOut = p.domain.registerMemory(out, Access.SEND, 3)) {
                exchange(p, big, second, out, mrBig, mrSecond, mrOut);
            }
        }
    }

    private static void exchange(EndpointPair p, MemorySegment big, MemorySegment second, MemorySegment out,
                                 MemoryRegion mrBig, MemoryRegion mrSecond, MemoryRegion mrOut) {
        Msg multi = new Msg().set(big, mrBig, Fabrics.ADDR_UNSPEC, "multi");
        assertEquals(-Errno.EBADFLAGS, p.b.recvmsg(multi, OpFlags.MULTI_RECV),
                "fi_recvmsg(FI_MULTI_RECV) on rxd");
        // the same buffer as a plain receive takes one 600-byte message; the next needs a receive of its own
        p.post(() -> p.b.recv(big, mrBig, Fabrics.ADDR_UNSPEC, "first"), "fi_recv");
        p.post(() -> p.a.send(out, mrOut, p.addrB, "tx1"), "fi_send 1");
        p.post(() -> p.a.send(out, mrOut, p.addrB, "tx2"), "fi_send 2");
        p.await(2, 1);
        assertSame("first", p.doneB.getFirst().context);
        assertEquals(600, p.doneB.getFirst().len);
        assertEquals(0, p.doneB.getFirst().flags & OpFlags.MULTI_RECV, OpFlags.toString(p.doneB.getFirst().flags));
        p.post(() -> p.b.recv(second, mrSecond, Fabrics.ADDR_UNSPEC, "second"), "fi_recv");
        p.await(2, 2);
        assertSame("second", p.doneB.get(1).context);
        assertEquals(600, p.doneB.get(1).len);
        assertEquals(-1L, second.asSlice(0, 600).mismatch(out), "the second message in the second buffer");
        assertEquals(0, big.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 600), "nothing after the first message");
    }
}
