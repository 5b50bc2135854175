package io.jfabric.conformance;

import io.jfabric.Access;
import io.jfabric.AddressVector;
import io.jfabric.CompletionQueue;
import io.jfabric.Domain;
import io.jfabric.EqAttr;
import io.jfabric.Endpoint;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.PassiveEndpoint;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/** One end of a test connection: its fabric, domain, queues, endpoint and the fi_addr of its peer. */
public final class Side {
    private static final AtomicLong NEXT_KEY = new AtomicLong(0x1000);

    public final String name;
    public final FabricCase fabricCase;
    public final StateDump dump;
    public FabricInfo info;
    public Fabric fabric;
    public Domain domain;
    public EventQueue eq;
    public PassiveEndpoint pep;
    public CompletionQueue txCq;
    public CompletionQueue rxCq;
    public AddressVector av;
    public Endpoint ep;
    /** The peer's fi_addr (connectionless) or FI_ADDR_UNSPEC (connected). */
    public long peer = Fabrics.ADDR_UNSPEC;

    public Side(String name, FabricCase fabricCase, StateDump dump) {
        this.name = name;
        this.fabricCase = fabricCase;
        this.dump = dump;
    }

    /** Opens this side's fabric, event queue and a listening passive endpoint for {@code info}; returns its name. */
    public byte[] listen(FabricInfo info, Poller poller) {
        fabric = dump.track(Fabrics.openFabric(info));
        eq = dump.track(fabric.openEq(EqAttr.defaults()));
        poller.add(eq);
        pep = dump.track(fabric.openPassiveEndpoint(info));
        pep.bind(eq);
        pep.listen();
        return pep.getName();
    }

    /** The descriptor a local buffer needs: a registration under FI_MR_LOCAL, null otherwise. */
    public MemoryRegion desc(MemorySegment seg) {
        if (!fabricCase.needsLocalMr() || seg.byteSize() == 0) {
            return null; // an empty buffer has no bytes for a local key to cover
        }
        return register(seg, Access.SEND | Access.RECV | Access.READ | Access.WRITE);
    }

    public MemoryRegion register(MemorySegment seg, long access) {
        return dump.track(domain.registerMemory(seg, access, 0, NEXT_KEY.getAndIncrement(), 0));
    }

    /** The remote address of byte {@code offset} of {@code mr}, as a peer names it in RMA. */
    public long remoteAddr(MemoryRegion mr, long offset) {
        return (info.domainAttr.mrMode & MrMode.VIRT_ADDR) != 0 ? mr.segment().address() + offset
                : offset;
    }

    @Override
    public String toString() {
        return name + "[ep=" + ep + ", txCq=" + txCq + ", rxCq=" + rxCq + ", eq=" + eq + ", av=" + av + "]";
    }
}
