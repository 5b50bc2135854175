package io.jfabric;

/** Mirrors {@code struct fi_fabric_attr}. Fields are public and mutable, as in C; null/0 means unspecified. */
public final class FabricAttr {
    /** Fabric name, e.g. the IP network for tcp ("192.0.2.0/24", "fd00::/64", loopback "127.0.0.1/32"). */
    public String name;
    /** Provider name; layered infos read "core;utility" (e.g. "tcp;ofi_rxm"). */
    public String provName;
    /** Provider version, FI_VERSION(major, minor). */
    public int provVersion;
    /** API version the info was requested at. */
    public int apiVersion;

    /** Attributes with every field unspecified. */
    public FabricAttr() {
    }

    /**
     * A copy, as part of {@code fi_dupinfo}.
     *
     * @return an independent copy
     */
    public FabricAttr copy() {
        FabricAttr c = new FabricAttr();
        c.name = name;
        c.provName = provName;
        c.provVersion = provVersion;
        c.apiVersion = apiVersion;
        return c;
    }
}
