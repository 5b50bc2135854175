/**
 * Shared provider machinery, jfabric's {@code prov/util}: every Java provider (tcp, shm, ofi_rxm, verbs)
 * is built from these pieces instead of writing its own. The libfabric provider uses what fits a bridge
 * (parameters, logging, the dead-owner sweep) and leaves queues and matching to native libfabric.
 *
 * <h2>The pieces and who uses them</h2>
 * <ul>
 * <li>{@link io.jfabric.util.UtilEndpoint}: the 27 data-path entry points of fi_msg(3), fi_tagged(3) and
 * fi_rma(3) written once. A provider's endpoint extends it and implements four hooks ({@code postSend},
 * {@code postRecv}, {@code postRead}, {@code postWrite}); each gets an {@link io.jfabric.util.OpRequest}
 * with the operation in named fields, under the lock the endpoint handed {@code lockHooksWith}
 * ({@link io.jfabric.util.NoLock} unless its threading level needs one).</li>
 * <li>{@link io.jfabric.util.EndpointBindings}: fi_ep_bind bookkeeping (one CQ per direction, one counter
 * per event kind, EINVAL for a second), fi_enable's checks, and the named reporting methods
 * ({@code reportTx}, {@code reportTxError}, {@code reportRx}, {@code reportRxError}, {@code reportRemote})
 * that apply FI_SELECTIVE_COMPLETION and bump the counters.</li>
 * <li>{@link io.jfabric.util.UtilCompletionQueue}, {@link io.jfabric.util.UtilEventQueue},
 * {@link io.jfabric.util.UtilCounter}: the queues and counters, driven through a
 * {@link io.jfabric.util.ProgressHook} in manual progress.</li>
 * <li>{@link io.jfabric.util.TagMatcher}: posted receives against unexpected messages, the one matcher
 * of every provider.</li>
 * <li>{@link io.jfabric.util.UtilDomain}: the base of the Java providers' domains (libfabric's util_domain):
 * info and fabric, EBUSY while anything opened from it (regions of its {@link io.jfabric.util.MrMap} too)
 * is open, EBADF once closed.</li>
 * <li>{@link io.jfabric.util.MrMap} and {@link io.jfabric.util.UtilMemoryRegion}: keys, access rights
 * and bounds checks for remote access. {@link io.jfabric.util.RegisteredRegion}: MemoryRegion's getters
 * from what was registered, for every provider's region class (the bridge's and verbs' too).</li>
 * <li>{@link io.jfabric.util.Sockaddr}: the one sockaddr_in/in6 type; {@link io.jfabric.util.FabricLog}:
 * the one logging scheme ({@code System.Logger} named {@code jfabric.<provider>}, level from
 * FI_LOG_LEVEL); {@link io.jfabric.util.ProviderParams}: FI_&lt;PROV&gt;_&lt;NAME&gt; parameters.</li>
 * <li>{@link io.jfabric.util.DeadOwnerFiles}: the start-up sweep of shared-memory files that killed processes
 * left behind (jfabric's shm regions, native libfabric shm's), each provider answering only whose file is dead.</li>
 * <li>{@link io.jfabric.util.UtilFabricObject}: reference counts, so closing a parent that still has
 * children fails with EBUSY.</li>
 * </ul>
 *
 * <h2>Threading</h2>
 * The report methods take no locks, and the base endpoint takes only the lock the provider gave it for its
 * hooks: the provider decides what its threading level needs. {@link io.jfabric.util.TagMatcher} is not
 * thread-safe: keep it under the endpoint's lock or on the progress thread. Queues are built lock-free for one writer and one reader, and take the
 * multi-writer/multi-reader paths only when the domain's threading level asks for them.
 */
package io.jfabric.util;
