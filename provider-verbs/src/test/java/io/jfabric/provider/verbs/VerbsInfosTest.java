package io.jfabric.provider.verbs;

import io.jfabric.AddressFormat;
import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Mode;
import io.jfabric.MrMode;
import io.jfabric.provider.verbs.ffi.NativeSockaddr;
import io.jfabric.util.Sockaddr;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;


import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The infos verbs builds for a device and how fi_getinfo's node/service/flags/hints select them. The
 * device here is a description (limits and addresses as ibv_query_device and rdma_bind_addr report
 * them for rxe); nothing is opened, so this runs without RDMA hardware.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class VerbsInfosTest {
    private static VerbsDevice rxe() throws Exception {
        return new VerbsDevice("rxe0", MemorySegment.NULL, -1L, 1 << 16, 1 << 14, 32, 1 << 14, (1 << 18) - 1,
                1 << 17, 128, 128, 1, 1L << 31,
                List.of(new VerbsDevice.Address(InetAddress.getByName("192.0.2.1"), 24, "sr0")), 1 << 14, 1 << 14,
                27);
    }

    private static FabricInfo verbsHints() {
        FabricInfo h = FabricInfo.hints();
        h.epAttr.type = EndpointType.MSG;
        h.caps = Caps.MSG | Caps.RMA;
        h.mode = Mode.RX_CQ_DATA;
        h.domainAttr.mrMode = MrMode.LOCAL | MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY;
        return h;
    }

    @Test
    void oneMsgInfoPerAddressNamedLikeLibfabric() throws Exception {
        List<FabricInfo> all = VerbsInfos.all(List.of(rxe()));
        assertEquals(1, all.size());
        FabricInfo i = all.getFirst();
        assertEquals("192.0.2.0/24", i.fabricAttr.name);
        assertEquals("rxe0", i.domainAttr.name);
        assertEquals("verbs", i.providerName());
        assertEquals(EndpointType.MSG, i.epAttr.type);
        assertEquals(AddressFormat.SOCKADDR_IN, i.addrFormat);
        assertEquals(0, Sockaddr.port(i.srcAddr));
        assertEquals(VerbsInfos.MR_MODE, i.domainAttr.mrMode);
        assertEquals(1L << 31, i.epAttr.maxMsgSize);
        assertTrue(i.txAttr.size <= 1 << 14 && i.txAttr.iovLimit <= 32);
    }

    /** fi_srx_context is offered where the device has SRQs, and rx_ctx_cnt FI_SHARED_CONTEXT then matches. */
    @Test
    void sharedReceiveContextsFollowTheDevicesSrqs() throws Exception {
        FabricInfo h = verbsHints();
        h.epAttr.rxCtxCnt = Fabrics.SHARED_CONTEXT;
        List<FabricInfo> got = VerbsInfos.getInfo(List.of(rxe()), Fabrics.API_VERSION, null, null, 0, h);
        assertEquals(1, got.size(), "rx_ctx_cnt FI_SHARED_CONTEXT on a device with SRQs");
        assertEquals(1 << 16, got.getFirst().domainAttr.maxEpSrxCtx, "every QP may share one SRQ (max_qp)");
        VerbsDevice d = rxe();
        VerbsDevice noSrq = new VerbsDevice(d.name(), d.context(), d.maxMrSize(), d.maxQp(), d.maxQpWr(), d.maxSge(),
                d.maxCq(), d.maxCqe(), d.maxMr(), d.maxQpRdAtom(), d.maxQpInitRdAtom(), d.atomicCap(), d.maxMsgSize(),
                d.addresses(), 0, 0, 0);
        assertEquals(0, VerbsInfos.all(List.of(noSrq)).getFirst().domainAttr.maxEpSrxCtx);
        assertTrue(VerbsInfos.getInfo(List.of(noSrq), Fabrics.API_VERSION, null, null, 0, h).isEmpty(),
                "a device without SRQs matches no FI_SHARED_CONTEXT hints");
    }

    @Test
    void applicationHintsMatchAndNodeServiceBecomeTheDestination() throws Exception {
        List<FabricInfo> got = VerbsInfos.getInfo(List.of(rxe()), Fabrics.API_VERSION, "192.0.2.2", "7471", 0,
                verbsHints());
        assertEquals(1, got.size(), "the verbs info should match a verbs application's hints");
        assertArrayEquals(Sockaddr.of(InetAddress.getByName("192.0.2.2"), 7471), got.getFirst().destAddr);
    }

    @Test
    void fiPingpongHintsWithoutRxCqDataStillMatch() throws Exception {
        FabricInfo h = verbsHints();
        h.mode = Mode.CONTEXT | Mode.CONTEXT2 | Mode.MSG_PREFIX; // what fi_pingpong asks for
        List<FabricInfo> got = VerbsInfos.getInfo(List.of(rxe()), Fabrics.API_VERSION, null, null, 0, h);
        assertEquals(1, got.size());
        assertEquals(0, got.getFirst().rxAttr.mode & Mode.RX_CQ_DATA);
        assertEquals(Mode.RX_CQ_DATA, VerbsInfos.getInfo(List.of(rxe()), Fabrics.API_VERSION, null, null, 0,
                verbsHints()).getFirst().rxAttr.mode & Mode.RX_CQ_DATA);
    }

    @Test
    void sourceFlagWithServiceSetsTheListeningPort() throws Exception {
        List<FabricInfo> got = VerbsInfos.getInfo(List.of(rxe()), Fabrics.API_VERSION, null, "7471", Fabrics.SOURCE,
                verbsHints());
        assertEquals(1, got.size());
        assertEquals(7471, Sockaddr.port(got.getFirst().srcAddr));
        assertNull(got.getFirst().destAddr);
    }

    @Test
    void hintsRefusingLocalMrOrOtherDevicesGetNothing() throws Exception {
        FabricInfo noLocal = verbsHints();
        noLocal.domainAttr.mrMode = MrMode.VIRT_ADDR;
        assertTrue(VerbsInfos.getInfo(List.of(rxe()), Fabrics.API_VERSION, null, null, 0, noLocal).isEmpty());
        FabricInfo otherDomain = verbsHints();
        otherDomain.domainAttr.name = "mlx5_0";
        assertTrue(VerbsInfos.getInfo(List.of(rxe()), Fabrics.API_VERSION, null, null, 0, otherDomain).isEmpty());
        assertTrue(VerbsInfos.getInfo(List.of(rxe()), Fabrics.API_VERSION, "not a host name!", null, 0,
                verbsHints()).isEmpty());
    }

    @Test
    void sockaddrBytesRoundTripThroughNativeMemory() throws Exception {
        byte[] sa = Sockaddr.of(InetAddress.getByName("192.0.2.7"), 4791);
        byte[] sa6 = Sockaddr.of(InetAddress.getByName("fd00::1"), 80);
        try (Arena a = Arena.ofConfined()) {
            assertArrayEquals(sa, NativeSockaddr.fromNative(NativeSockaddr.toNative(sa, a)));
            assertArrayEquals(sa6, NativeSockaddr.fromNative(NativeSockaddr.toNative(sa6, a)));
            assertNull(NativeSockaddr.fromNative(a.allocate(128)), "an unset family reads as no address");
        }
        VerbsDevice d = rxe();
        assertEquals(AddressFormat.SOCKADDR_IN, VerbsInfos.info(d, d.addresses().getFirst()).addrFormat);
        assertEquals(AddressFormat.SOCKADDR_IN6, VerbsInfos.info(d, new VerbsDevice.Address(InetAddress.getByName("fd00::1"),
                64, "sr0")).addrFormat);
    }

    @Test
    void workCompletionStatusesMapToLibfabricErrors() {
        assertEquals(io.jfabric.Errno.ECANCELED, WcStatus.toErrno(5, true));
        assertEquals(io.jfabric.Errno.ETRUNC, WcStatus.toErrno(1, true));
        assertEquals(io.jfabric.Errno.EACCES, WcStatus.toErrno(10, false));
        assertEquals(io.jfabric.Errno.ETIMEDOUT, WcStatus.toErrno(12, false));
        assertEquals("remote access error", WcStatus.text(10)); // libibverbs' own text
    }

    @Test
    void txRingRetiresInOrder() {
        TxRing r = new TxRing(4);
        for (int i = 0; i < 4; i++) {
            r.commit(r.next(), "c" + i, 0, 10, i == 2);
        }
        assertTrue(r.full());
        assertTrue(r.outstanding(3));
        while (r.tail != 2) {
            r.releaseTail(); // completion of slot 2 retires the unsignaled 0 and 1
        }
        r.releaseTail();
        assertEquals(1, r.count);
        assertTrue(r.outstanding(3));
        assertTrue(!r.outstanding(1));
    }
}
