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

    /**
     * {@code fi_wait_open}: a wait set that completion queues, event queues and counters join by naming it in
     * their attributes with wait object FI_WAIT_SET; members may come from any Java provider.
     *
     * @param attr the wait object (not FI_WAIT_NONE, FI_WAIT_SET or FI_WAIT_POLLFD) and flags 0
     * @return the wait set
     * @throws FabricException EINVAL for an unusable attribute, ENOSYS without provider-util on the path
     */
    default WaitSet openWait(WaitAttr attr) {
        return io.jfabric.internal.Waits.support().openWait(attr);
    }

    /**
     * {@code fi_trywait}: whether it is safe to block on the given objects' wait objects. It drives their
     * progress once and answers -FI_EAGAIN when any of them already has events (read them, then ask again).
     *
     * @param objects completion queues, event queues, counters and wait sets; a queue in a wait set is
     *     checked through its set
     * @return 0 when blocking is safe, -FI_EAGAIN when events are pending, -FI_EINVAL for an object without a
     *     wait object (FI_WAIT_NONE) or of another kind, -FI_ENOSYS where the provider cannot tell
     */
    default int trywait(FabricObject... objects) {
        return io.jfabric.internal.Waits.present() ? io.jfabric.internal.Waits.support().trywait(objects)
                : -Errno.ENOSYS;
    }
}
