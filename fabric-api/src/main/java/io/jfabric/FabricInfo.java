package io.jfabric;

import java.util.Arrays;

/**
 * Mirrors {@code struct fi_info}: one way to reach a fabric, as returned by {@link Fabrics#getInfo}, and
 * also the hints passed to it (start from {@link #hints()} or {@link Hints}). Fields are public and
 * mutable as in C. Differences from libfabric: results are a {@code List} instead of a {@code next}
 * chain; addresses are byte arrays holding the C representation (sockaddr bytes, or the NUL-free
 * string for FI_ADDR_STR); {@link #providerData} is an opaque slot for the provider that made the info.
 */
public final class FabricInfo {
    /** Caps bits. */
    public long caps;
    /** Mode bits. */
    public long mode;
    public AddressFormat addrFormat = AddressFormat.UNSPEC;
    public byte[] srcAddr;
    public byte[] destAddr;
    /** For a CONNREQ's info: the connection request to accept or reject. Otherwise null. */
    public Object handle;
    public TxAttr txAttr = new TxAttr();
    public RxAttr rxAttr = new RxAttr();
    public EndpointAttr epAttr = new EndpointAttr();
    public DomainAttr domainAttr = new DomainAttr();
    public FabricAttr fabricAttr = new FabricAttr();
    /** Name of the network interface, where the provider knows it (fi_info's nic->device_attr->name). */
    public String nicName;
    /** Opaque to applications: whatever the providing provider needs to open this info (copied by reference). */
    public Object providerData;

    /** A blank info for use as hints: every attribute present and unspecified, mode 0. */
    public static FabricInfo hints() {
        return new FabricInfo();
    }

    /** Deep copy, as {@code fi_dupinfo}. */
    public FabricInfo copy() {
        FabricInfo c = new FabricInfo();
        c.caps = caps;
        c.mode = mode;
        c.addrFormat = addrFormat;
        c.srcAddr = srcAddr == null ? null : srcAddr.clone();
        c.destAddr = destAddr == null ? null : destAddr.clone();
        c.handle = handle;
        c.txAttr = txAttr == null ? null : txAttr.copy();
        c.rxAttr = rxAttr == null ? null : rxAttr.copy();
        c.epAttr = epAttr == null ? null : epAttr.copy();
        c.domainAttr = domainAttr == null ? null : domainAttr.copy();
        c.fabricAttr = fabricAttr == null ? null : fabricAttr.copy();
        c.nicName = nicName;
        c.providerData = providerData;
        return c;
    }

    /** The provider name ("tcp", "tcp;ofi_rxm", "libfabric:shm"), or null. */
    public String providerName() {
        return fabricAttr == null ? null : fabricAttr.provName;
    }

    @Override
    public String toString() {
        return "FabricInfo[" + providerName() + ", " + (epAttr == null ? "?" : epAttr.type.cName()) + ", "
                + Caps.toString(caps) + ", src=" + (srcAddr == null ? "-" : Arrays.toString(srcAddr)) + "]";
    }
}
