package io.jfabric;

/** Mirrors {@code struct fid_fabric} ({@code fi_fabric}): the root of one provider's objects. */
public interface Fabric extends FabricObject {
    /** The info this fabric was opened from. */
    FabricInfo info();

    /** {@code fi_domain}. */
    Domain openDomain(FabricInfo info);

    /** {@code fi_passive_ep}: a listening endpoint for FI_EP_MSG. */
    PassiveEndpoint openPassiveEndpoint(FabricInfo info);

    /** {@code fi_eq_open}. */
    EventQueue openEq(EqAttr attr);
}
