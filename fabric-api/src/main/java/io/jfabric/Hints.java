package io.jfabric;

/**
 * Fluent builder for the hints of {@link Fabrics#getInfo}; what {@code fi_allocinfo} plus field
 * assignments do in C. {@code Hints.create().caps(Caps.MSG | Caps.TAGGED).epType(EndpointType.RDM).build()}.
 */
public final class Hints {
    private final FabricInfo info = FabricInfo.hints();

    private Hints() {
    }

    /**
     * Starts from blank hints: every attribute unspecified, mode 0.
     *
     * @return a builder
     */
    public static Hints create() {
        return new Hints();
    }

    /**
     * {@code hints->caps}.
     *
     * @param caps Caps bits the application needs
     * @return this builder
     */
    public Hints caps(long caps) {
        info.caps = caps;
        return this;
    }

    /**
     * {@code hints->mode}.
     *
     * @param mode Mode bits the application accepts
     * @return this builder
     */
    public Hints mode(long mode) {
        info.mode = mode;
        return this;
    }

    /**
     * {@code hints->ep_attr->type}.
     *
     * @param type the endpoint type
     * @return this builder
     */
    public Hints epType(EndpointType type) {
        info.epAttr.type = type;
        return this;
    }

    /**
     * {@code hints->addr_format}.
     *
     * @param format the address format
     * @return this builder
     */
    public Hints addrFormat(AddressFormat format) {
        info.addrFormat = format;
        return this;
    }

    /**
     * {@code hints->fabric_attr->prov_name}; "tcp;ofi_rxm" and "ofi_rxm;tcp" are the same.
     *
     * @param name the provider name
     * @return this builder
     */
    public Hints provider(String name) {
        info.fabricAttr.provName = name;
        return this;
    }

    /**
     * {@code hints->fabric_attr->name}.
     *
     * @param name the fabric name (for tcp, the network as fi_info prints it, e.g. "192.0.2.0/24" or "127.0.0.1/32")
     * @return this builder
     */
    public Hints fabric(String name) {
        info.fabricAttr.name = name;
        return this;
    }

    /**
     * {@code hints->domain_attr->name}.
     *
     * @param name the domain name (for tcp, the interface)
     * @return this builder
     */
    public Hints domain(String name) {
        info.domainAttr.name = name;
        return this;
    }

    /**
     * {@code hints->domain_attr->threading}.
     *
     * @param threading the threading model the application keeps
     * @return this builder
     */
    public Hints threading(Threading threading) {
        info.domainAttr.threading = threading;
        return this;
    }

    /**
     * {@code hints->domain_attr->control_progress} and {@code data_progress}.
     *
     * @param control control progress
     * @param data data progress
     * @return this builder
     */
    public Hints progress(Progress control, Progress data) {
        info.domainAttr.controlProgress = control;
        info.domainAttr.dataProgress = data;
        return this;
    }

    /**
     * {@code hints->domain_attr->mr_mode}.
     *
     * @param mrMode MrMode bits the application supports
     * @return this builder
     */
    public Hints mrMode(int mrMode) {
        info.domainAttr.mrMode = mrMode;
        return this;
    }

    /**
     * {@code hints->domain_attr->av_type}.
     *
     * @param type the AV type
     * @return this builder
     */
    public Hints avType(AvType type) {
        info.domainAttr.avType = type;
        return this;
    }

    /**
     * {@code hints->src_addr}; naming an address also keeps discovery's order from preferring another one.
     *
     * @param addr the local address, in the hints' addr_format
     * @return this builder
     */
    public Hints srcAddr(byte[] addr) {
        info.srcAddr = addr;
        return this;
    }

    /**
     * {@code hints->dest_addr}.
     *
     * @param addr the peer's address, in the hints' addr_format
     * @return this builder
     */
    public Hints destAddr(byte[] addr) {
        info.destAddr = addr;
        return this;
    }

    /**
     * {@code hints->tx_attr->op_flags}.
     *
     * @param flags default OpFlags of transmit operations
     * @return this builder
     */
    public Hints txOpFlags(long flags) {
        info.txAttr.opFlags = flags;
        return this;
    }

    /**
     * The hints.
     *
     * @return a copy, so the builder may be reused
     */
    public FabricInfo build() {
        return info.copy();
    }
}
