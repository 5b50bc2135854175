package io.jfabric.spi;

import io.jfabric.AddressFormat;
import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Mode;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import io.jfabric.ResourceMgmt;
import io.jfabric.Threading;
import io.jfabric.testprov.MimicInfos;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rules of ofi_check_info / ofi_alter_info one at a time, on a verbs-like and a tcp-like info. */
@Timeout(30)
class InfoMatcherTest {
    static final int API = Fabrics.API_VERSION;

    /** A provider info needing FI_MR_LOCAL|VIRT_ADDR|PROV_KEY|ALLOCATED, threading DOMAIN, manual progress. */
    static FabricInfo verbsLike() {
        FabricInfo f = MimicInfos.tcpMsg(MimicInfos.interfaces().get(0));
        f.domainAttr.mrMode = MrMode.LOCAL | MrMode.VIRT_ADDR | MrMode.PROV_KEY | MrMode.ALLOCATED;
        f.domainAttr.threading = Threading.DOMAIN;
        f.domainAttr.controlProgress = Progress.MANUAL;
        f.domainAttr.dataProgress = Progress.MANUAL;
        f.domainAttr.resourceMgmt = ResourceMgmt.DISABLED;
        f.addrFormat = AddressFormat.SOCKADDR_IB;
        f.mode = Mode.RX_CQ_DATA;
        f.epAttr.maxOrderRawSize = 64;
        return f;
    }

    static FabricInfo hints() {
        FabricInfo h = FabricInfo.hints();
        h.mode = ~0L;
        h.domainAttr.mrMode = ~(MrMode.BASIC | MrMode.SCALABLE);
        return h;
    }

    @ParameterizedTest(name = "threading {0} on a FI_THREAD_DOMAIN provider: {1}")
    @CsvSource({"UNSPEC,true", "DOMAIN,true", "COMPLETION,false", "ENDPOINT,false", "FID,false", "SAFE,false"})
    void threadingIsRanked(Threading t, boolean ok) {
        FabricInfo h = hints();
        h.domainAttr.threading = t;
        String r = InfoMatcher.explain(verbsLike(), h);
        assertEquals(ok, r == null, r);
        if (ok) {
            Threading out = InfoMatcher.alter(verbsLike(), h, API).domainAttr.threading;
            assertEquals(t == Threading.UNSPEC ? Threading.DOMAIN : t, out);
        }
    }

    @ParameterizedTest(name = "progress {0} on a manual provider: {1}")
    @CsvSource({"UNSPEC,true", "MANUAL,true", "AUTO,false"})
    void progressIsRanked(Progress p, boolean ok) {
        FabricInfo h = hints();
        h.domainAttr.dataProgress = p;
        assertEquals(ok, InfoMatcher.explain(verbsLike(), h) == null);
        h.domainAttr.dataProgress = Progress.UNSPEC;
        h.domainAttr.controlProgress = p;
        assertEquals(ok, InfoMatcher.explain(verbsLike(), h) == null);
    }

    @ParameterizedTest(name = "resource_mgmt {0} on an RM-disabled provider: {1}")
    @CsvSource({"UNSPEC,true", "DISABLED,true", "ENABLED,false"})
    void resourceManagementIsRanked(ResourceMgmt rm, boolean ok) {
        FabricInfo h = hints();
        h.domainAttr.resourceMgmt = rm;
        assertEquals(ok, InfoMatcher.explain(verbsLike(), h) == null);
    }

    @ParameterizedTest(name = "provider {0} accepts hint {1}: {2}")
    @CsvSource({
        "SOCKADDR,SOCKADDR_IN,true", "SOCKADDR,SOCKADDR_IN6,true", "SOCKADDR,SOCKADDR_IB,false",
        "SOCKADDR_IN,SOCKADDR_IN6,false", "SOCKADDR_IN,SOCKADDR,true", "SOCKADDR_IN6,SOCKADDR_IN,true",
        "SOCKADDR_IB,SOCKADDR_IN6,true", "SOCKADDR_IB,ADDR_STR,false", "ADDR_STR,ADDR_STR,true",
        "ADDR_STR,SOCKADDR_IN,false", "UNSPEC,ADDR_PSMX2,true", "ADDR_PSMX2,UNSPEC,true"})
    void addressFormats(AddressFormat prov, AddressFormat user, boolean ok) {
        assertEquals(ok, InfoChecks.validAddrFormat(prov, user));
    }

    @Test
    void mrModeBitsNeededByTheCaps() {
        // with RMA target caps every bit is needed; without, only LOCAL and ALLOCATED remain
        int all = MrMode.LOCAL | MrMode.VIRT_ADDR | MrMode.PROV_KEY | MrMode.ALLOCATED;
        assertEquals(all, InfoChecks.capMrMode(Caps.MSG | Caps.RMA, all));
        assertEquals(MrMode.LOCAL | MrMode.ALLOCATED, InfoChecks.capMrMode(Caps.MSG, all));
        assertEquals(0, InfoChecks.capMrMode(Caps.MSG, MrMode.VIRT_ADDR | MrMode.PROV_KEY));
        assertEquals(MrMode.LOCAL, InfoChecks.capMrMode(Caps.RMA | Caps.WRITE, MrMode.LOCAL | MrMode.VIRT_ADDR));
        int passRma = 0;
        int passMsg = 0;
        for (int combo = 0; combo < 256; combo++) {
            int mode = combo << 2; // LOCAL .. ENDPOINT
            FabricInfo h = hints();
            h.domainAttr.mrMode = mode;
            h.caps = Caps.MSG | Caps.RMA;
            passRma += InfoMatcher.explain(verbsLike(), h) == null ? 1 : 0;
            h.caps = Caps.MSG;
            if (InfoMatcher.explain(verbsLike(), h) == null) {
                passMsg++;
                // output: kept when the hints accept every bit, else trimmed to what MSG needs; an
                // mr_mode hint of 0 (FI_MR_UNSPEC) passes and trims to nothing, as ofi_alter_info does
                int expected = mode == 0 ? 0 : (mode & all) == all ? all : MrMode.LOCAL | MrMode.ALLOCATED;
                assertEquals(expected, InfoMatcher.alter(verbsLike(), h, API).domainAttr.mrMode, "hint " + mode);
            }
        }
        assertEquals(16 + 1, passRma);  // supersets of the four bits, plus FI_MR_UNSPEC
        assertEquals(64 + 1, passMsg);  // supersets of LOCAL|ALLOCATED, plus FI_MR_UNSPEC
    }

    @Test
    void mrLocalProviderNeedsLocalMrModeWithoutMrModeHints() {
        FabricInfo h = hints();
        h.domainAttr.mrMode = MrMode.UNSPEC;
        h.mode = 0;
        FabricInfo p = verbsLike();
        p.mode = 0;
        assertTrue(InfoMatcher.explain(p, h).contains("FI_LOCAL_MR"), InfoMatcher.explain(p, h));
        h.mode = Mode.LOCAL_MR;
        assertNull(InfoMatcher.explain(p, h));
        // legacy FI_MR_BASIC on an FI_MR_LOCAL provider turns FI_LOCAL_MR on in the output
        FabricInfo legacy = verbsLike();
        legacy.domainAttr.mrMode |= MrMode.BASIC;
        FabricInfo lh = hints();
        lh.domainAttr.mrMode = MrMode.BASIC;
        assertNull(InfoMatcher.explain(legacy, lh));
        FabricInfo out = InfoMatcher.alter(legacy, lh, API);
        assertEquals(MrMode.BASIC, out.domainAttr.mrMode);
        assertTrue((out.mode & Mode.LOCAL_MR) != 0);
    }

    @Test
    void modeRule() {
        FabricInfo h = hints();
        h.mode = 0;
        assertTrue(InfoMatcher.explain(verbsLike(), h).contains("FI_RX_CQ_DATA"));
        h.mode = Mode.RX_CQ_DATA | Mode.CONTEXT;
        assertNull(InfoMatcher.explain(verbsLike(), h));
        // tx_attr mode falls back to the info's mode
        FabricInfo p = verbsLike();
        p.txAttr.mode = Mode.CONTEXT2;
        assertTrue(InfoMatcher.explain(p, h).startsWith("tx needs mode FI_CONTEXT2"));
        h.txAttr.mode = Mode.CONTEXT2;
        assertNull(InfoMatcher.explain(p, h));
    }

    @Test
    void capsArePrimaryPlusSecondaryWithImpliedDirections() {
        FabricInfo p = MimicInfos.tcpMsg(MimicInfos.interfaces().get(0));
        FabricInfo h = hints();
        h.caps = Caps.MSG;
        FabricInfo out = InfoMatcher.alter(p, h, API);
        // as fi_info -p tcp -c FI_MSG shows on 1.17: LOCAL/REMOTE_COMM are primary, so they go
        assertEquals(Caps.MSG | Caps.SEND | Caps.RECV | Caps.RMA_PMEM | Caps.RMA_EVENT, out.caps);
        assertEquals(Caps.MSG | Caps.SEND | Caps.RMA_PMEM, out.txAttr.caps);
        h.caps = Caps.MSG | Caps.SEND;
        assertEquals(Caps.MSG | Caps.SEND | Caps.RMA_PMEM | Caps.RMA_EVENT, InfoMatcher.alter(p, h, API).caps);
        h.caps = Caps.TAGGED;
        assertTrue(InfoMatcher.explain(p, h).startsWith("caps FI_TAGGED not supported"));
    }

    @Test
    void limitsSharedContextsAndTags() {
        FabricInfo p = verbsLike();
        FabricInfo h = hints();
        h.txAttr.injectSize = 129;
        assertTrue(InfoMatcher.explain(p, h).startsWith("inject_size 129 exceeds"));
        h.txAttr.injectSize = 128;
        h.txAttr.size = 64;
        assertNull(InfoMatcher.explain(p, h));
        FabricInfo out = InfoMatcher.alter(p, h, API);
        assertEquals(64, out.txAttr.size);
        assertEquals(128, out.txAttr.injectSize);
        h.epAttr.txCtxCnt = Fabrics.SHARED_CONTEXT;
        assertTrue(InfoMatcher.explain(p, h).contains("shared tx contexts not supported"));
        h.epAttr.txCtxCnt = 0;
        p.epAttr.rxCtxCnt = Fabrics.SHARED_CONTEXT;
        assertTrue(InfoMatcher.explain(p, h).contains("requires shared rx contexts"));
        h.epAttr.rxCtxCnt = Fabrics.SHARED_CONTEXT;
        assertNull(InfoMatcher.explain(p, h));  // max_ep_srx_ctx is non-zero
        // RMA ordering sizes count only when RMA or atomics are asked for
        FabricInfo q = verbsLike();
        FabricInfo o = hints();
        o.epAttr.maxOrderRawSize = 65;
        assertNull(InfoMatcher.explain(q, o));
        o.caps = Caps.RMA;
        assertTrue(InfoMatcher.explain(q, o).startsWith("max_order_raw_size 65 exceeds"));
        o.epAttr.maxOrderRawSize = 32;
        assertEquals(32, InfoMatcher.alter(q, o, API).epAttr.maxOrderRawSize);
        // tags: compared by the largest tag each format carries
        FabricInfo t = MimicInfos.shm("fi_shm://1");
        FabricInfo th = hints();
        th.caps = Caps.TAGGED;
        th.epAttr.memTagFormat = 0x7fffffffffffffffL;
        assertNull(InfoMatcher.explain(t, th));
        th.epAttr.memTagFormat = -1L;
        assertTrue(InfoMatcher.explain(t, th) == null, "0xaaaa... carries 64 bits");
        t.epAttr.memTagFormat = 0xaaaaL;
        assertTrue(InfoMatcher.explain(t, th).startsWith("mem_tag_format"));
    }

    @Test
    void epTypeProtocolAndNames() {
        FabricInfo p = MimicInfos.tcpMsg(MimicInfos.interfaces().get(0));
        FabricInfo h = hints();
        h.epAttr.type = EndpointType.RDM;
        assertEquals("ep_type FI_EP_RDM not supported (offers FI_EP_MSG)", InfoMatcher.explain(p, h));
        h.epAttr.type = EndpointType.UNSPEC;
        h.epAttr.protocol = io.jfabric.Protocol.RXM;
        assertTrue(InfoMatcher.explain(p, h).startsWith("protocol FI_PROTO_RXM"));
        h.epAttr.protocol = io.jfabric.Protocol.UNSPEC;
        h.fabricAttr.provName = "ofi_rxm;tcp";
        assertNull(InfoMatcher.explain(p, h));
        h.fabricAttr.provName = "shm";
        assertTrue(InfoMatcher.explain(p, h).contains("not named"));
        h.fabricAttr.provName = null;
        h.domainAttr.name = "ETH0";
        assertNull(InfoMatcher.explain(p, h));
        h.fabricAttr.name = "10.0.0.0/8";
        assertTrue(InfoMatcher.explain(p, h).startsWith("fabric '10.0.0.0/8' not offered"));
    }

    @Test
    void nullHintsMatchEverythingAndDropLegacyMrBits() {
        List<FabricInfo> out = InfoMatcher.match(List.of(MimicInfos.tcpMsg(MimicInfos.interfaces().get(1))), null, API);
        assertEquals(1, out.size());
        assertEquals(0, out.get(0).domainAttr.mrMode);
        assertEquals(API, out.get(0).fabricAttr.apiVersion);
        assertEquals(Fabrics.version(1, 0),
                InfoMatcher.match(List.of(MimicInfos.tcpMsg(MimicInfos.interfaces().get(1))), null,
                        Fabrics.version(1, 0)).get(0).fabricAttr.apiVersion);
    }
}
