/**
 * JFR events named {@code jfabric.*}: what an operator needs after the fact (connections, peer failure,
 * operation errors, CQ overruns, slow SAR and rendezvous transfers, and a periodic sample of every live
 * endpoint's counts). Events are emitted off the per-operation success path, except the transfer event of
 * the multi-step protocols, which is asked for behind an {@link io.jfabric.util.jfr.EventGate}; so an
 * unrecorded event costs at most one flag test, and nothing on the eager data path. Read them with
 * {@code jfr print --events 'jfabric.*' recording.jfr}.
 */
package io.jfabric.util.jfr;
