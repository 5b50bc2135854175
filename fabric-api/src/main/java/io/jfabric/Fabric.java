package io.jfabric;

/** Mirrors {@code struct fid_fabric} ({@code fi_fabric}): the root of one provider's objects. */
public interface Fabric extends FabricObject {
    /**
     * The info this fabric was opened from.
     *
     * @return the info
     */
    FabricInfo info();

    /**
     * {@code fi_domain}.
     *
     * @param info an info of this fabric's provider
     * @return the domain
     * @throws FabricException EINVAL if the info names another provider or fabric, ENODEV if its domain is gone
     */
    Domain openDomain(FabricInfo info);

    /**
     * {@code fi_passive_ep}: a listening endpoint for FI_EP_MSG.
     *
     * @param info an FI_EP_MSG info, with src_addr to listen on
     * @return the passive endpoint
     * @throws FabricException ENOSYS or EOPNOTSUPP from a provider without FI_EP_MSG
     */
    PassiveEndpoint openPassiveEndpoint(FabricInfo info);

    /**
     * {@code fi_eq_open}.
     *
     * @param attr size in entries and wait object
     * @return the event queue
     * @throws FabricException EINVAL for an unsupported attribute
     */
    EventQueue openEq(EqAttr attr);
}
