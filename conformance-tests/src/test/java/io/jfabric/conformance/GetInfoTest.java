package io.jfabric.conformance;

import io.jfabric.Caps;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** fi_getinfo(3): what each case's info says, and that hints select and refuse as libfabric's do. */
@Timeout(30)
class GetInfoTest {
    @org.junit.jupiter.api.extension.RegisterExtension
    final StateDump dump = new StateDump();

    @ForEachFabric
    void infoIsComplete(FabricCase c) {
        FabricInfo i = c.info();
        assertNotNull(i.fabricAttr.name, "fabric_attr->name");
        assertNotNull(i.domainAttr.name, "domain_attr->name");
        assertTrue(i.fabricAttr.provVersion != 0, "fabric_attr->prov_version");
        assertTrue(i.epAttr.maxMsgSize != 0, "ep_attr->max_msg_size");
        assertTrue(i.txAttr.size != 0, "tx_attr->size");
        assertTrue(i.rxAttr.size != 0, "rx_attr->size");
        assertTrue(i.txAttr.iovLimit != 0, "tx_attr->iov_limit");
        assertTrue(i.rxAttr.iovLimit != 0, "rx_attr->iov_limit");
        assertTrue((i.caps & (Caps.MSG | Caps.TAGGED | Caps.RMA | Caps.ATOMIC)) != 0,
                "caps offer at least one of MSG, TAGGED, RMA, ATOMIC: " + Caps.toString(i.caps));
        assertEquals(0, i.txAttr.caps & ~i.caps, "tx_attr->caps is a subset of caps");
        assertEquals(0, i.rxAttr.caps & ~i.caps, "rx_attr->caps is a subset of caps");
        if ((i.caps & Caps.TAGGED) != 0) {
            assertTrue(i.epAttr.memTagFormat != 0, "FI_TAGGED needs a mem_tag_format");
        }
    }

    @ForEachFabric
    void hintsNamingProviderAndTypeSelectOnlyThem(FabricCase c) {
        FabricInfo hints = Hints.create().provider(c.provider()).epType(c.epType()).mrMode(appMrMode(c)).build();
        List<FabricInfo> infos = Fabrics.getInfo(hints);
        assertFalse(infos.isEmpty());
        for (FabricInfo i : infos) {
            assertEquals(c.epType(), i.epAttr.type, "endpoint type of " + i);
            assertEquals(canonical(c.provider()), canonical(i.providerName()), "provider of " + i);
        }
    }

    @ForEachFabric
    void askedCapsAreGranted(FabricCase c) {
        long primary = c.info().caps & (Caps.MSG | Caps.TAGGED | Caps.RMA);
        FabricInfo hints = Hints.create().provider(c.provider()).epType(c.epType()).caps(primary)
                .mrMode(appMrMode(c)).build();
        for (FabricInfo i : Fabrics.getInfo(hints)) {
            assertEquals(primary, i.caps & primary, "caps asked for are in the result: " + Caps.toString(i.caps));
        }
    }

    @ForEachFabric
    void impossibleHintsGiveEnodataWithReasons(FabricCase c) {
        // no provider has a domain of this name
        FabricInfo hints = Hints.create().provider(c.provider()).epType(c.epType()).domain("no-such-domain-0xC0DE")
                .build();
        FabricException e = assertThrows(FabricException.class, () -> Fabrics.getInfo(hints));
        assertEquals(Errno.ENODATA, e.errno(), e.getMessage());
        assertFalse(e.getMessage().isBlank());
    }

    @ForEachFabric
    void unknownProviderNameIsRefused(FabricCase c) {
        FabricInfo hints = Hints.create().provider("no-such-provider").epType(c.epType()).build();
        FabricException e = assertThrows(FabricException.class, () -> Fabrics.getInfo(hints));
        assertEquals(Errno.ENODATA, e.errno());
    }

    @ForEachFabric
    void copyIsDeep(FabricCase c) {
        FabricInfo copy = c.info().copy();
        assertNotSame(c.info().epAttr, copy.epAttr);
        assertNotSame(c.info().domainAttr, copy.domainAttr);
        long original = c.info().epAttr.maxMsgSize;
        copy.epAttr.maxMsgSize = original ^ 1;
        assertEquals(original, c.info().epAttr.maxMsgSize, "changing a copy leaves the original alone");
    }

    /**
     * The mr_mode an application that handles this case's registration duties puts in its hints: the bits the
     * info asks for (FI_MR_LOCAL, FI_MR_VIRT_ADDR, ... for verbs); fi_getinfo(3) declines a provider whose
     * mr_mode bits the hints do not accept.
     */
    static int appMrMode(FabricCase c) {
        return c.info().domainAttr.mrMode;
    }

    /** "ofi_rxm;tcp" and "tcp;ofi_rxm" name the same layering. */
    static String canonical(String name) {
        if (name == null || !name.contains(";")) {
            return name;
        }
        String[] parts = name.split(";");
        java.util.Arrays.sort(parts);
        return String.join(";", parts);
    }
}
