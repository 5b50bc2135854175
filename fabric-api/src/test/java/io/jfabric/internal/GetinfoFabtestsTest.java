package io.jfabric.internal;

import io.jfabric.AddressFormat;
import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Mode;
import io.jfabric.MrMode;
import io.jfabric.MsgOrder;
import io.jfabric.Progress;
import io.jfabric.Threading;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * fabtests' fi_getinfo_test (fabtests/unit/getinfo_test.c, v1.17) as a table, run the way
 * runfabtests runs it: per provider, with FI_PROVIDER set to the core and base hints of mode ~0,
 * mr_mode FI_MR_LOCAL|FI_MR_ENDPOINT|OFI_MR_BASIC_MAP and the provider name. fabtests accepts either
 * -FI_ENODATA or a passing check for several cases; here each case states the one outcome libfabric's
 * rules give for the test-scope tcp, shm and tcp;ofi_rxm providers (1.17's attributes).
 */
@Timeout(60)
class GetinfoFabtestsTest {
    static final int V1_17 = Fabrics.API_VERSION;
    static final int V1_0 = Fabrics.version(1, 0);
    static final int FABTESTS_MR = MrMode.LOCAL | MrMode.ENDPOINT | MrMode.ALLOCATED | MrMode.PROV_KEY
            | MrMode.VIRT_ADDR;
    static final long PRIMARY_TX = Caps.MSG | Caps.RMA | Caps.TAGGED | Caps.ATOMIC | Caps.MULTICAST
            | Caps.NAMED_RX_CTX | Caps.HMEM | Caps.COLLECTIVE;
    static final long PRIMARY_RX = Caps.MSG | Caps.RMA | Caps.TAGGED | Caps.ATOMIC | Caps.DIRECTED_RECV
            | Caps.VARIABLE_MSG | Caps.HMEM | Caps.COLLECTIVE;
    static final long PRIMARY = PRIMARY_TX | PRIMARY_RX;
    static final long DOMAIN_CAPS = Caps.LOCAL_COMM | Caps.REMOTE_COMM | Caps.SHARED_AV;
    static final long SEC_TX = Caps.TRIGGER | Caps.FENCE | Caps.RMA_PMEM;
    static final long SEC_RX = Caps.RMA_PMEM | Caps.SOURCE | Caps.SOURCE_ERR | Caps.RMA_EVENT | Caps.MULTI_RECV
            | Caps.TRIGGER;
    static final long OPT_TX = Caps.SEND | Caps.READ | Caps.WRITE | SEC_TX;
    static final long OPT_RX = Caps.RECV | Caps.REMOTE_READ | Caps.REMOTE_WRITE | SEC_RX;
    static final long OPT_CAPS = DOMAIN_CAPS | OPT_TX | OPT_RX;

    /** How runfabtests runs fi_getinfo_test for one provider: FI_PROVIDER, -p and -e. */
    record Prov(String label, String filter, String provName, EndpointType type) {
        FabricInfo baseHints() {
            FabricInfo h = FabricInfo.hints();
            h.mode = ~0L;
            h.domainAttr.mrMode = FABTESTS_MR;
            h.fabricAttr.provName = provName;
            h.epAttr.type = type;
            return h;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    static final Prov TCP = new Prov("tcp", "tcp", "tcp", EndpointType.MSG);
    static final Prov SHM = new Prov("shm", "shm", "shm", EndpointType.RDM);
    static final Prov RXM = new Prov("tcp;ofi_rxm", "tcp", "tcp;ofi_rxm", EndpointType.RDM);

    /** One fabtests case: hints change, API version, and the expected count (0 = -FI_ENODATA) and check. */
    record Case(String name, Prov prov, int version, boolean nullHints, Consumer<FabricInfo> init, int expected,
                Predicate<FabricInfo> check) {
        @Override
        public String toString() {
            return name + " [" + prov + "]";
        }
    }

    static Case ok(String name, Prov p, Consumer<FabricInfo> init, int n, Predicate<FabricInfo> check) {
        return new Case(name, p, V1_17, false, init, n, check);
    }

    static Case none(String name, Prov p, Consumer<FabricInfo> init) {
        return new Case(name, p, V1_17, false, init, 0, i -> true);
    }

    static Stream<Case> cases() {
        List<Case> c = new ArrayList<>();
        // 1. no hints (FI_PROVIDER alone selects): every info has a source address
        c.add(new Case("no_hints1", TCP, V1_17, true, h -> { }, 6, i -> i.srcAddr != null && i.srcAddr.length > 0));
        c.add(new Case("no_hints1", SHM, V1_17, true, h -> { }, 1, i -> i.srcAddr != null && i.srcAddr.length > 0));
        for (Prov p : List.of(TCP, SHM, RXM)) {
            int n = p == SHM ? 1 : 3;
            c.add(ok("src1", p, h -> { }, n, i -> i.srcAddr != null));
            c.add(ok("src_dest2 (API version)", p, h -> { }, n, i -> i.fabricAttr.apiVersion == V1_17));
            c.add(none("neg1 (non-existent domain)", p, h -> h.domainAttr.name = "invalid_domain"));
            c.add(ok("progress1 data manual", p, h -> h.domainAttr.dataProgress = Progress.MANUAL, n,
                    i -> i.domainAttr.dataProgress == Progress.MANUAL));
            c.add(ok("progress3 ctrl manual", p, h -> h.domainAttr.controlProgress = Progress.MANUAL, n,
                    i -> i.domainAttr.controlProgress == Progress.MANUAL));
            c.add(ok("progress4 ctrl auto", p, h -> h.domainAttr.controlProgress = Progress.AUTO, n,
                    i -> i.domainAttr.controlProgress == Progress.AUTO));
            c.add(ok("threading domain", p, h -> h.domainAttr.threading = Threading.DOMAIN, n,
                    i -> i.domainAttr.threading == Threading.DOMAIN));
            c.add(ok("threading safe", p, h -> h.domainAttr.threading = Threading.SAFE, n,
                    i -> i.domainAttr.threading == Threading.SAFE));
            // mr_mode 1-5: the legacy modes alone; v1.0 maps UNSPEC to BASIC or SCALABLE
            c.add(ok("mr_mode1 FI_MR_BASIC", p, h -> { h.caps |= Caps.RMA; h.domainAttr.mrMode = MrMode.BASIC; },
                    n, i -> i.domainAttr.mrMode == MrMode.BASIC));
            c.add(ok("mr_mode2 FI_MR_SCALABLE", p, h -> { h.caps |= Caps.RMA; h.domainAttr.mrMode = MrMode.SCALABLE; },
                    n, i -> i.domainAttr.mrMode == MrMode.SCALABLE));
            c.add(new Case("mr_mode3 FI_MR_UNSPEC (v1.0)", p, V1_0, false,
                    h -> { h.caps |= Caps.RMA; h.domainAttr.mrMode = MrMode.UNSPEC; }, n,
                    i -> i.domainAttr.mrMode == MrMode.BASIC || i.domainAttr.mrMode == MrMode.SCALABLE));
            c.add(new Case("mr_mode4 FI_MR_BASIC (v1.0)", p, V1_0, false,
                    h -> { h.caps |= Caps.RMA; h.domainAttr.mrMode = MrMode.BASIC; }, n,
                    i -> i.domainAttr.mrMode == MrMode.BASIC && i.fabricAttr.apiVersion == V1_0));
            c.add(new Case("mr_mode5 FI_MR_SCALABLE (v1.0)", p, V1_0, false,
                    h -> { h.caps |= Caps.RMA; h.domainAttr.mrMode = MrMode.SCALABLE; }, n,
                    i -> i.domainAttr.mrMode == MrMode.SCALABLE));
            c.add(none("mr_mode FI_MR_BASIC not alone", p,
                    h -> h.domainAttr.mrMode = MrMode.BASIC | MrMode.LOCAL));
            c.add(ok("caps2 (null-hint caps carry nothing extra)", p, h -> { }, n, i -> !noExtraCaps(i, 0)));
            c.add(ok("raw_ordering1", p, h -> {
                h.caps = Caps.RMA;
                h.txAttr.msgOrder = MsgOrder.RAW;
                h.rxAttr.msgOrder = MsgOrder.RAW;
            }, n, i -> i.epAttr.maxOrderRawSize != 0));
            c.add(ok("addr_format FI_SOCKADDR", p, h -> h.addrFormat = AddressFormat.SOCKADDR,
                    p == SHM ? 0 : 3, i -> true));
        }
        // progress2: shm and rxm make data progress manually, so FI_PROGRESS_AUTO is declined
        c.add(ok("progress2 data auto", TCP, h -> h.domainAttr.dataProgress = Progress.AUTO, 3,
                i -> i.domainAttr.dataProgress == Progress.AUTO));
        c.add(none("progress2 data auto", SHM, h -> h.domainAttr.dataProgress = Progress.AUTO));
        c.add(none("progress2 data auto", RXM, h -> h.domainAttr.dataProgress = Progress.AUTO));
        c.add(ok("util1 (utility name appended)", RXM, h -> { }, 3, i -> i.fabricAttr.provName.endsWith(";ofi_rxm")));
        // WAR ordering: tcp and rxm do not order write-after-read, shm does
        c.add(none("war_ordering1", TCP, h -> { h.caps = Caps.RMA; h.txAttr.msgOrder = MsgOrder.WAR; }));
        c.add(ok("war_ordering1", SHM, h -> {
            h.caps = Caps.RMA;
            h.txAttr.msgOrder = MsgOrder.WAR;
            h.rxAttr.msgOrder = MsgOrder.WAR;
        }, 1, i -> i.epAttr.maxOrderWarSize != 0));
        // address formats
        c.add(ok("addr_format FI_SOCKADDR_IN", TCP, h -> h.addrFormat = AddressFormat.SOCKADDR_IN, 3, i -> true));
        c.add(ok("addr_format FI_SOCKADDR_IN6", TCP, h -> h.addrFormat = AddressFormat.SOCKADDR_IN6, 1,
                i -> i.addrFormat == AddressFormat.SOCKADDR_IN6));
        c.add(none("addr_format FI_SOCKADDR_IB", TCP, h -> h.addrFormat = AddressFormat.SOCKADDR_IB));
        c.add(ok("addr_format FI_ADDR_STR", SHM, h -> h.addrFormat = AddressFormat.ADDR_STR, 1, i -> true));
        c.add(none("addr_format FI_ADDR_STR", TCP, h -> h.addrFormat = AddressFormat.ADDR_STR));
        // mode: rxm's FI_BUFFERED_RECV appears only when the hints accept it; a mode hint of 0 accepts none
        c.add(ok("mode ~0", RXM, h -> { }, 3, i -> (i.mode & Mode.BUFFERED_RECV) != 0));
        c.add(ok("mode 0", RXM, h -> h.mode = 0, 3, i -> i.mode == 0));
        return c.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void fabtestsCase(Case k) {
        Discovery d = Discovery.load();
        FabricInfo hints = null;
        if (!k.nullHints()) {
            hints = k.prov().baseHints();
            k.init().accept(hints);
        }
        List<FabricInfo> infos;
        try {
            infos = d.getInfo(k.version(), null, null, 0, hints, k.prov().filter());
        } catch (FabricException e) {
            assertEquals(Errno.ENODATA, e.errno(), e.getMessage());
            assertEquals(0, k.expected(), "expected " + k.expected() + " infos, got ENODATA: " + e.getMessage());
            return;
        }
        assertEquals(k.expected(), infos.size(), () -> "infos: " + infos);
        for (FabricInfo i : infos) {
            assertTrue(k.check().test(i), () -> k.name() + " check failed for " + io.jfabric.InfoPrinter.toString(i));
        }
    }

    /** fabtests' check_no_extra_caps: true when the info carries caps it should not. */
    static boolean noExtraCaps(FabricInfo info, long caps) {
        if ((caps & (info.caps & ~(caps | OPT_CAPS))) != 0) {
            return true;
        }
        if ((info.txAttr.caps & ~(PRIMARY_TX | OPT_TX)) != 0 || (info.rxAttr.caps & ~(PRIMARY_RX | OPT_RX)) != 0) {
            return true;
        }
        return (info.rxAttr.caps & ~info.caps) != 0;
    }

    /** fabtests' check_caps. */
    static boolean capsWrong(FabricInfo info, long caps) {
        if (noExtraCaps(info, caps)) {
            return true;
        }
        if (caps == 0) {
            return false;
        }
        return (info.caps & caps) != caps || (info.txAttr.caps & (caps & PRIMARY_TX)) != (caps & PRIMARY_TX)
                || (info.rxAttr.caps & (caps & PRIMARY_RX)) != (caps & PRIMARY_RX);
    }

    /** ft_alloc_bit_combo: every subset of the set bits of {@code bits}. */
    static List<Long> combos(long bits) {
        List<Long> set = new ArrayList<>();
        for (long b = bits; b != 0; b &= b - 1) {
            set.add(Long.lowestOneBit(b));
        }
        List<Long> out = new ArrayList<>();
        for (int m = 0; m < 1 << set.size(); m++) {
            long v = 0;
            for (int k = 0; k < set.size(); k++) {
                if ((m & (1 << k)) != 0) {
                    v |= set.get(k);
                }
            }
            out.add(v);
        }
        return out;
    }

    /** validate_bit_combos: how many combinations succeed; every success must pass the check. */
    static int passingCombos(Prov p, long bits, java.util.function.BiConsumer<FabricInfo, Long> init,
                             java.util.function.BiPredicate<FabricInfo, Long> bad) {
        Discovery d = Discovery.load();
        int passed = 0;
        for (long combo : combos(bits)) {
            FabricInfo h = p.baseHints();
            init.accept(h, combo);
            List<FabricInfo> infos;
            try {
                infos = d.getInfo(V1_17, null, null, 0, h, p.filter());
            } catch (FabricException e) {
                assertEquals(Errno.ENODATA, e.errno());
                continue;
            }
            for (FabricInfo i : infos) {
                if (bad.test(i, combo)) {
                    fail(p + ": combination 0x" + Long.toHexString(combo) + " gave " + io.jfabric.InfoPrinter.toString(i));
                }
            }
            passed++;
        }
        return passed;
    }

    static Stream<Object[]> comboCases() {
        // expected passing combinations per provider: subsets of the supported bits
        return Stream.of(
                new Object[]{TCP, "msg_ordering1 tx", 1 << 7},  // RAR RAW RAS WAW WAS SAW SAS
                new Object[]{SHM, "msg_ordering1 tx", 1 << 9},  // all nine of STRICT
                new Object[]{RXM, "msg_ordering1 tx", 1 << 7},
                new Object[]{TCP, "msg_ordering2 rx", 1 << 7},
                new Object[]{SHM, "msg_ordering2 rx", 1 << 9},
                new Object[]{TCP, "caps1", 4},                   // MSG, RMA
                new Object[]{SHM, "caps1", 32},                  // MSG, RMA, TAGGED, ATOMIC, DIRECTED_RECV
                new Object[]{RXM, "caps1", 8},                   // MSG, RMA, TAGGED
                new Object[]{TCP, "caps3 domain", 4},            // LOCAL_COMM, REMOTE_COMM
                new Object[]{SHM, "caps3 domain", 1},            // none
                new Object[]{TCP, "mr_mode6", 256},              // needs no mr_mode bit
                new Object[]{SHM, "mr_mode6", 256},
                new Object[]{RXM, "mr_mode6", 256});
    }

    @ParameterizedTest(name = "{1} [{0}] passes {2} combinations")
    @MethodSource("comboCases")
    void bitCombinations(Prov p, String test, int expected) {
        int passed = switch (test) {
            case "msg_ordering1 tx" -> passingCombos(p, MsgOrder.STRICT | MsgOrder.DATA,
                    (h, v) -> h.txAttr.msgOrder = v, (i, v) -> (i.txAttr.msgOrder & v) != v);
            case "msg_ordering2 rx" -> passingCombos(p, MsgOrder.STRICT | MsgOrder.DATA,
                    (h, v) -> h.rxAttr.msgOrder = v, (i, v) -> (i.rxAttr.msgOrder & v) != v);
            case "caps1" -> passingCombos(p, PRIMARY, (h, v) -> h.caps = v, GetinfoFabtestsTest::capsWrong);
            case "caps3 domain" -> passingCombos(p, DOMAIN_CAPS, (h, v) -> h.domainAttr.caps = v,
                    (i, v) -> (i.domainAttr.caps & v) != v);
            case "mr_mode6" -> passingCombos(p, MrMode.LOCAL | MrMode.RAW | MrMode.VIRT_ADDR | MrMode.ALLOCATED
                            | MrMode.PROV_KEY | MrMode.MMU_NOTIFY | MrMode.RMA_EVENT | MrMode.ENDPOINT,
                    (h, v) -> h.domainAttr.mrMode = (int) (long) v, (i, v) -> (i.domainAttr.mrMode & ~v) != 0);
            default -> throw new IllegalArgumentException(test);
        };
        assertEquals(expected, passed);
    }

    @ParameterizedTest(name = "caps4 regression [{0}]")
    @MethodSource("provs")
    void capsRegression(Prov p) {
        Discovery d = Discovery.load();
        FabricInfo first = d.getInfo(V1_17, null, null, 0, null, p.filter()).stream()
                .filter(i -> i.fabricAttr.provName.equalsIgnoreCase(p.provName())).findFirst().orElseThrow();
        FabricInfo h = p.baseHints();
        h.caps |= first.caps;
        h.mode = Mode.CONTEXT;
        h.domainAttr.mrMode = MrMode.LOCAL | MrMode.ALLOCATED | MrMode.PROV_KEY | MrMode.VIRT_ADDR;
        assertFalse(d.getInfo(V1_17, null, null, 0, h, p.filter()).isEmpty(),
                "new mode/mr_mode bits required for caps the provider itself reported");
    }

    static Stream<Prov> provs() {
        return Stream.of(TCP, SHM, RXM);
    }
}
