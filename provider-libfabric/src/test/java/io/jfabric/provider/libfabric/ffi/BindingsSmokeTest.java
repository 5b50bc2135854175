package io.jfabric.provider.libfabric.ffi;

import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;
import io.jfabric.provider.libfabric.ffi.generated.fi_domain_attr;
import io.jfabric.provider.libfabric.ffi.generated.fi_ep_attr;
import io.jfabric.provider.libfabric.ffi.generated.fi_fabric_attr;
import io.jfabric.provider.libfabric.ffi.generated.fi_info;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_msg;
import io.jfabric.provider.libfabric.ffi.generated.fi_tx_attr;
import io.jfabric.provider.libfabric.ffi.generated.fid;
import io.jfabric.provider.libfabric.ffi.generated.fid_domain;
import io.jfabric.provider.libfabric.ffi.generated.fid_fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Calls the real libfabric through the bindings: fi_getinfo with tcp hints, a walk of the result
 * list, then fi_fabric and fi_domain (through the fabric ops table) and fi_close on both.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BindingsSmokeTest {

    private static final int VERSION = (Fabric_h.FI_MAJOR_VERSION() << 16) | Fabric_h.FI_MINOR_VERSION();

    @Test
    void getinfoWithTcpHintsThenOpenFabricAndDomain() {
        assertTrue(Fabric_h.isAvailable(), Fabric_h.unavailableReason());
        assertTrue(Fabric_h.fi_version() >= ((1 << 16) | 17), "libfabric >= 1.17");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment hints = FabricInline.fi_allocinfo();
            assertNotEquals(0, hints.address(), "fi_allocinfo");
            // fi_freeinfo(hints) frees prov_name, so it must come from malloc
            fi_fabric_attr.prov_name(fi_info.fabric_attr(hints), LibC.strdup(arena.allocateFrom("tcp")));
            fi_ep_attr.type(fi_info.ep_attr(hints), Fabric_h.FI_EP_MSG());
            fi_info.caps(hints, Fabric_h.FI_MSG());

            MemorySegment out = arena.allocate(Fabric_h.C_POINTER);
            int rc = Fabric_h.fi_getinfo(VERSION, MemorySegment.NULL, MemorySegment.NULL, 0, hints, out);
            Fabric_h.fi_freeinfo(hints);
            assertEquals(0, rc, () -> "fi_getinfo: " + Fabric_h.fi_strerror(-rc).getString(0));
            MemorySegment head = out.get(Fabric_h.C_POINTER, 0);
            try {
                List<String> names = new ArrayList<>();
                for (MemorySegment i = head; i.address() != 0; i = fi_info.next(i)) {
                    MemorySegment fa = fi_info.fabric_attr(i);
                    names.add(fi_fabric_attr.prov_name(fa).getString(0));
                    assertEquals(Fabric_h.FI_EP_MSG(), fi_ep_attr.type(fi_info.ep_attr(i)));
                    assertEquals(Fabric_h.FI_MSG(), fi_info.caps(i) & Fabric_h.FI_MSG());
                    assertTrue(fi_tx_attr.size(fi_info.tx_attr(i)) > 0, "tx size");
                    assertFalse(fi_domain_attr.name(fi_info.domain_attr(i)).getString(0).isEmpty());
                }
                assertFalse(names.isEmpty(), "tcp msg infos");
                assertTrue(names.stream().allMatch(n -> n.equals("tcp")), "provider names " + names);

                MemorySegment fabricOut = arena.allocate(Fabric_h.C_POINTER);
                assertEquals(0, Fabric_h.fi_fabric(fi_info.fabric_attr(head), fabricOut, MemorySegment.NULL));
                MemorySegment fabric = fabricOut.get(Fabric_h.C_POINTER, 0);
                assertEquals(Fabric_h.FI_CLASS_FABRIC(), fid.fclass(fid_fabric.fid(fabric)));

                MemorySegment domainOut = arena.allocate(Fabric_h.C_POINTER);
                assertEquals(0, FabricInline.fi_domain(fabric, head, domainOut, MemorySegment.NULL));
                MemorySegment domain = domainOut.get(Fabric_h.C_POINTER, 0);
                assertEquals(Fabric_h.FI_CLASS_DOMAIN(), fid.fclass(fid_domain.fid(domain)));

                // closing a fabric with an open domain is refused, as libfabric documents
                assertEquals(-Fabric_h.FI_EBUSY(), FabricInline.fi_close(fabric));
                assertEquals(0, FabricInline.fi_close(domain));
                assertEquals(0, FabricInline.fi_close(fabric));
            } finally {
                Fabric_h.fi_freeinfo(head);
            }
        }
    }

    @Test
    void checkOpRejectsATooShortOpsTable() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ops = arena.allocate(fi_ops_msg.layout());
            fi_ops_msg.send(ops, MemorySegment.ofAddress(0x1234));
            fi_ops_msg.size(ops, fi_ops_msg.send$offset()); // table ends right before send
            assertEquals(0, FabricInline.op(ops, fi_ops_msg.send$offset()).address());
            fi_ops_msg.size(ops, fi_ops_msg.sizeof());
            assertEquals(0x1234, FabricInline.op(ops, fi_ops_msg.send$offset()).address());
            assertEquals(0, FabricInline.op(MemorySegment.NULL, 8).address());
        }
    }

    @Test
    void strerrorAndTostrWork() {
        assertEquals("Resource temporarily unavailable", Fabric_h.fi_strerror(Fabric_h.FI_EAGAIN()).getString(0));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment type = arena.allocate(Fabric_h.C_INT);
            type.set(Fabric_h.C_INT, 0, Fabric_h.FI_EP_RDM());
            assertEquals("FI_EP_RDM", Fabric_h.fi_tostr(type, Fabric_h.FI_TYPE_EP_TYPE()).getString(0).trim());
        }
    }
}
