package io.jfabric;

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
    /** {@code addr_format}: the format of srcAddr and destAddr. */
    public AddressFormat addrFormat = AddressFormat.UNSPEC;
    /**
     * {@code src_addr}: the local address in addr_format (sockaddr bytes, or the string of FI_ADDR_STR), or
     * null.
     */
    public byte[] srcAddr;
    /** {@code dest_addr}: the peer's address in addr_format, or null. */
    public byte[] destAddr;
    /** For a CONNREQ's info: the connection request to accept or reject. Otherwise null. */
    public Object handle;
    /** {@code tx_attr}. */
    public TxAttr txAttr = new TxAttr();
    /** {@code rx_attr}. */
    public RxAttr rxAttr = new RxAttr();
    /** {@code ep_attr}. */
    public EndpointAttr epAttr = new EndpointAttr();
    /** {@code domain_attr}. */
    public DomainAttr domainAttr = new DomainAttr();
    /** {@code fabric_attr}. */
    public FabricAttr fabricAttr = new FabricAttr();
    /** Name of the network interface, where the provider knows it (fi_info's nic->device_attr->name). */
    public String nicName;
    /** Opaque to applications: whatever the providing provider needs to open this info (copied by reference). */
    public Object providerData;

    /** A blank info, as {@link #hints()} returns. */
    public FabricInfo() {
    }

    /**
     * {@code fi_allocinfo}: a blank info for use as hints, every attribute present and unspecified, mode 0.
     *
     * @return a fresh info
     */
    public static FabricInfo hints() {
        return new FabricInfo();
    }

    /**
     * {@code fi_dupinfo}: a deep copy.
     *
     * @return an independent copy (handle and providerData shared by reference)
     */
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

    /**
     * {@code fabric_attr->prov_name}.
     *
     * @return "tcp", "tcp;ofi_rxm", "libfabric:shm" ..., or null
     */
    public String providerName() {
        return fabricAttr == null ? null : fabricAttr.provName;
    }

    /**
     * One line in fi_info's terms: provider, fabric, domain, type, protocol, the addresses as fi_straddr prints
     * them ({@code fi_sockaddr_in://127.0.0.1:4711}) and the caps. {@link InfoPrinter#toString(FabricInfo)}
     * gives fi_tostr's full block.
     *
     * @return e.g. {@code fi_info[provider: tcp, fabric: 127.0.0.1/32, ..., src_addr:
     *     fi_sockaddr_in://127.0.0.1:4711, ...]}
     */
    @Override
    public String toString() {
        return InfoPrinter.oneLine(this);
    }
}
