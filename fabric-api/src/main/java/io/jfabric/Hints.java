package io.jfabric;

/**
 * Fluent builder for the hints of {@link Fabrics#getInfo}; what {@code fi_allocinfo} plus field
 * assignments do in C. {@code Hints.create().caps(Caps.MSG | Caps.TAGGED).epType(EndpointType.RDM).build()}.
 */
public final class Hints {
    private final FabricInfo info = FabricInfo.hints();

    private Hints() {
    }

    public static Hints create() {
        return new Hints();
    }

    public Hints caps(long caps) {
        info.caps = caps;
        return this;
    }

    public Hints mode(long mode) {
        info.mode = mode;
        return this;
    }

    public Hints epType(EndpointType type) {
        info.epAttr.type = type;
        return this;
    }

    public Hints addrFormat(AddressFormat format) {
        info.addrFormat = format;
        return this;
    }

    /** Provider name, as {@code hints->fabric_attr->prov_name}; "tcp;ofi_rxm" and "ofi_rxm;tcp" are the same. */
    public Hints provider(String name) {
        info.fabricAttr.provName = name;
        return this;
    }

    public Hints fabric(String name) {
        info.fabricAttr.name = name;
        return this;
    }

    public Hints domain(String name) {
        info.domainAttr.name = name;
        return this;
    }

    public Hints threading(Threading threading) {
        info.domainAttr.threading = threading;
        return this;
    }

    public Hints progress(Progress control, Progress data) {
        info.domainAttr.controlProgress = control;
        info.domainAttr.dataProgress = data;
        return this;
    }

    public Hints mrMode(int mrMode) {
        info.domainAttr.mrMode = mrMode;
        return this;
    }

    public Hints avType(AvType type) {
        info.domainAttr.avType = type;
        return this;
    }

    public Hints srcAddr(byte[] addr) {
        info.srcAddr = addr;
        return this;
    }

    public Hints destAddr(byte[] addr) {
        info.destAddr = addr;
        return this;
    }

    public Hints txOpFlags(long flags) {
        info.txAttr.opFlags = flags;
        return this;
    }

    public FabricInfo build() {
        return info.copy();
    }
}
