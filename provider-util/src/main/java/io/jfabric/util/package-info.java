/**
 * Shared provider machinery, jfabric's {@code prov/util}. A provider composes these pieces instead of
 * writing its own queues, maps and matchers.
 *
 * <h2>Usage guide</h2>
 * <pre>{@code
 * // Parameters and logging (static, once per provider)
 * static final ProviderParams PARAMS = new ProviderParams("tcp");
 * static final ProviderParams.LongParam MAX_INJECT = PARAMS.size("max_inject", 128, "Max inject bytes");
 * static final ProgressEngine.Params PROGRESS = new ProgressEngine.Params(PARAMS);   // tcp_progress_idle
 * static final System.Logger LOG = FabricLog.logger("tcp");
 * public List<ProviderParameter> parameters() { return PARAMS.parameters(); }        // FabricProvider
 *
 * // Domain: progress engine, MR map
 * ProgressEngine progress = PROGRESS.engine("tcp-progress", info.domainAttr.dataProgress, selectorBlocker, false);
 * progress.add(this::pollSockets);              // Task: int doWork(), no allocation, no blocking
 * progress.start();                             // AUTO: Agrona AgentRunner thread; MANUAL: no-op
 * MrMap mrs = new MrMap(info.domainAttr.mrMode, (int) info.domainAttr.mrKeySize);
 * public MemoryRegion registerMemory(MemorySegment s, long access, long off, long key, long flags) {
 *     return mrs.register(s, access, off, key, null);                   // throws ENOKEY for a key in use
 * }
 * // RMA target, per request (lock-free, no allocation, never throws):
 * UtilMemoryRegion mr = mrs.find(key);
 * long at = mr == null ? -Errno.ENOKEY : mr.resolve(addr, len, Access.REMOTE_WRITE);
 * if (at < 0) { reply with error (int) at; } else { MemorySegment.copy(..., mr.segment(), at, len); }
 *
 * // Queues: give every queue the engine's hook (NONE in AUTO mode)
 * public CompletionQueue openCq(CqAttr a) {
 *     return new UtilCompletionQueue(a, progress.hook(), multiWriter, threading == Threading.SAFE);
 * }
 * public Counter openCounter(CounterAttr a) { return new UtilCounter(a, progress.hook()); }
 * public EventQueue openEq(EqAttr a)        { return new UtilEventQueue(a, progress.hook()); }
 * public AddressVector openAv(AvAttr a)     { return new UtilAddressVector<Peer>(a, Sockaddr.CODEC, peerListener, "tcp"); }
 *
 * // Endpoint
 * EndpointBindings binds = new EndpointBindings("tcp endpoint");
 * bind(cq, flags) -> binds.bindCq(cq, flags);   enable() -> binds.checkEnable(true, true, rdm, msg);
 * close()        -> binds.releaseAll();
 * post:  if (!binds.txCq().tryReserve()) return -Errno.EAGAIN;   // optional FI_RM_ENABLED back-pressure
 * done:  binds.reportTx(context, opFlags, OpFlags.SEND | OpFlags.MSG, len);
 * error: binds.reportTxError(context, OpFlags.SEND | OpFlags.MSG, len, 0, Errno.ECONNRESET, 0);
 *
 * // Receive side
 * TagMatcher m = new TagMatcher(rxSize, unexpectedLimit, (caps & Caps.DIRECTED_RECV) != 0, 16384);
 * trecv:   TagMatcher.Unexpected u = m.takeUnexpected(true, tag, ignore, src);
 *          if (u != null) { deliver u.payload; m.free(u); } else { Recv r = m.newRecv(); ...; m.post(r); }
 * arrival: TagMatcher.Recv r = m.matchPosted(true, tag, srcFiAddr);
 *          if (r == null && m.addUnexpected(true, tag, src, len, data, flags) == null) { stop reading: backpressure }
 * cancel:  TagMatcher.Recv r = m.cancel(ctx); if (r != null) { binds.reportRxError(ctx, ..., Errno.ECANCELED, 0); m.free(r); }
 *
 * // Objects with children: extend UtilFabricObject, call parent.acquire() on open and
 * // parent.release() on close; closing a parent still in use throws FabricException(EBUSY).
 * }</pre>
 *
 * <h2>Threading levels</h2>
 * <ul>
 * <li>FI_THREAD_DOMAIN / COMPLETION / ENDPOINT with MANUAL progress: the application thread writes
 * completions inside its own reads; CQs need no locks ({@code multiWriter = multiReader = false}).</li>
 * <li>AUTO progress: the engine's thread writes, the application reads: still the lock-free
 * single-writer/single-reader case, unless the posting thread also writes completions (immediate
 * errors) - then {@code multiWriter = true}.</li>
 * <li>FI_THREAD_SAFE: {@code multiReader = true} and usually {@code multiWriter = true}; use
 * {@link io.jfabric.util.ConcurrentObjectPool}, and either thread-safe tasks or a serializing engine.
 * {@link io.jfabric.util.TagMatcher}, {@link io.jfabric.util.ObjectPool},
 * {@link io.jfabric.util.IndexedPool} and {@link io.jfabric.util.ProgressTimers} are never
 * thread-safe: keep them under the endpoint's lock or on the progress thread.</li>
 * </ul>
 */
package io.jfabric.util;
