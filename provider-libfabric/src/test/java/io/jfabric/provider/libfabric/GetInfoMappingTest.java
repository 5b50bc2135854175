package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.Mode;
import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;
import io.jfabric.spi.FabricProvider;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.ServiceLoader;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * fi_getinfo through the libfabric provider: discovery by ServiceLoader, naming, hint translation, the mapping of
 * every attribute both ways, and agreement with libfabric's own {@code fi_info} tool.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GetInfoMappingTest {
    private final LibfabricProvider provider = new LibfabricProvider();

    @Test
    void serviceLoaderFindsTheBridge() {
        FabricProvider p = ServiceLoader.load(FabricProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(x -> x.name().equals("libfabric")).findFirst().orElseThrow();
        assertNull(p.unavailableReason(), "libfabric 1.17 is installed here");
        assertTrue(p.version() >= Fabrics.version(1, 17));
    }

    @Test
    void everyInfoIsNamedAfterItsNativeProvider() {
        List<FabricInfo> all = provider.getInfo(Fabrics.API_VERSION, null, null, 0, null);
        assertFalse(all.isEmpty());
        TreeSet<String> names = all.stream().map(FabricInfo::providerName).collect(Collectors.toCollection(TreeSet::new));
        assertTrue(names.stream().allMatch(n -> n.startsWith("libfabric:")), names.toString());
        assertTrue(names.contains("libfabric:tcp"), names.toString());
        assertTrue(names.contains("libfabric:shm"), names.toString());
        assertTrue(names.contains("libfabric:tcp;ofi_rxm"), names.toString());
    }

    @Test
    void hintsSelectNativeProvidersAndJavaNamesSelectNothing() {
        FabricInfo shm = Hints.create().provider("libfabric:shm").caps(Caps.TAGGED).epType(EndpointType.RDM).build();
        List<FabricInfo> infos = provider.getInfo(Fabrics.API_VERSION, null, null, 0, shm);
        assertFalse(infos.isEmpty());
        for (FabricInfo i : infos) {
            assertEquals("libfabric:shm", i.providerName());
            assertEquals(EndpointType.RDM, i.epAttr.type);
            assertEquals(Caps.TAGGED, i.caps & Caps.TAGGED);
            assertEquals(0, i.mode & (Mode.CONTEXT | Mode.CONTEXT2), "the libfabric provider owns the context modes");
        }
        // the Java providers' names never reach native libfabric
        assertTrue(provider.getInfo(Fabrics.API_VERSION, null, null, 0,
                Hints.create().provider("tcp").build()).isEmpty());
        // a comma list takes each libfabric: name
        List<FabricInfo> two = provider.getInfo(Fabrics.API_VERSION, null, null, 0,
                Hints.create().provider("libfabric:shm,libfabric:tcp").epType(EndpointType.MSG).build());
        assertTrue(two.stream().allMatch(i -> i.providerName().equals("libfabric:tcp")), two.toString());
        assertFalse(two.isEmpty());
    }

    @Test
    void attributesSurviveTheRoundTripThroughNative() {
        for (FabricInfo j1 : provider.getInfo(Fabrics.API_VERSION, null, null, 0, null)) {
            MemorySegment n = InfoMapper.toNative(j1, InfoMapper.nativeName(j1.providerName()));
            try {
                FabricInfo j2 = InfoMapper.toJava(n);
                assertEquals(describe(j1), describe(j2), j1.providerName());
            } finally {
                Fabric_h.fi_freeinfo(n);
            }
        }
    }

    @Test
    void agreesWithFiInfo() throws Exception {
        String out = run("fi_info", "-p", "shm", "-v");
        List<FabricInfo> infos = provider.getInfo(Fabrics.API_VERSION, null, null, 0,
                Hints.create().provider("libfabric:shm").build());
        long count = out.lines().filter(l -> l.startsWith("---")).count();
        assertEquals(count, infos.size(), "as many infos as fi_info prints");
        FabricInfo first = infos.get(0);
        String maxMsg = Long.toUnsignedString(first.epAttr.maxMsgSize);
        assertTrue(out.contains("max_msg_size: " + maxMsg), "max_msg_size " + maxMsg);
        String inject = Long.toUnsignedString(first.txAttr.injectSize);
        assertTrue(out.contains("inject_size: " + inject), "inject_size " + inject);
        assertTrue(out.contains("threading: " + first.domainAttr.threading.cName()));
        assertTrue(out.contains("addr_format: " + first.addrFormat.cName()));
        assertTrue(out.contains("mem_tag_format: 0x" + String.format("%016x", first.epAttr.memTagFormat)),
                "mem_tag_format 0x" + Long.toHexString(first.epAttr.memTagFormat));
    }

    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), s);
        return s;
    }

    /** Every attribute of an info, as text, for whole-info comparison. */
    static String describe(FabricInfo i) {
        StringBuilder b = new StringBuilder();
        b.append(i.caps).append('/').append(i.mode).append('/').append(i.addrFormat).append('/')
                .append(java.util.Arrays.toString(i.srcAddr)).append('/').append(java.util.Arrays.toString(i.destAddr))
                .append('\n');
        var t = i.txAttr;
        b.append("tx ").append(t.caps).append(' ').append(t.mode).append(' ').append(t.opFlags).append(' ')
                .append(t.msgOrder).append(' ').append(t.compOrder).append(' ').append(t.injectSize).append(' ')
                .append(t.size).append(' ').append(t.iovLimit).append(' ').append(t.rmaIovLimit).append(' ')
                .append(t.tclass).append('\n');
        var r = i.rxAttr;
        b.append("rx ").append(r.caps).append(' ').append(r.mode).append(' ').append(r.opFlags).append(' ')
                .append(r.msgOrder).append(' ').append(r.compOrder).append(' ').append(r.totalBufferedRecv).append(' ')
                .append(r.size).append(' ').append(r.iovLimit).append('\n');
        var e = i.epAttr;
        b.append("ep ").append(e.type).append(' ').append(e.protocol).append(' ').append(e.protocolVersion).append(' ')
                .append(e.maxMsgSize).append(' ').append(e.msgPrefixSize).append(' ').append(e.maxOrderRawSize)
                .append(' ').append(e.maxOrderWarSize).append(' ').append(e.maxOrderWawSize).append(' ')
                .append(e.memTagFormat).append(' ').append(e.txCtxCnt).append(' ').append(e.rxCtxCnt).append(' ')
                .append(java.util.Arrays.toString(e.authKey)).append('\n');
        var d = i.domainAttr;
        b.append("domain ").append(d.name).append(' ').append(d.threading).append(' ').append(d.controlProgress)
                .append(' ').append(d.dataProgress).append(' ').append(d.resourceMgmt).append(' ').append(d.avType)
                .append(' ').append(d.mrMode).append(' ').append(d.mrKeySize).append(' ').append(d.cqDataSize)
                .append(' ').append(d.cqCnt).append(' ').append(d.epCnt).append(' ').append(d.txCtxCnt).append(' ')
                .append(d.rxCtxCnt).append(' ').append(d.maxEpTxCtx).append(' ').append(d.maxEpRxCtx).append(' ')
                .append(d.maxEpStxCtx).append(' ').append(d.maxEpSrxCtx).append(' ').append(d.cntrCnt).append(' ')
                .append(d.mrIovLimit).append(' ').append(d.caps).append(' ').append(d.mode).append(' ')
                .append(java.util.Arrays.toString(d.authKey)).append(' ').append(d.maxErrData).append(' ')
                .append(d.mrCnt).append(' ').append(d.tclass).append('\n');
        var f = i.fabricAttr;
        b.append("fabric ").append(f.name).append(' ').append(f.provName).append(' ').append(f.provVersion).append(' ')
                .append(f.apiVersion);
        return b.toString();
    }
}
