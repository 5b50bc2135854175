/**
 * JFR events named {@code jfabric.*}: what an operator needs after the fact (connections, peer failure,
 * operation errors, CQ overruns). Every event is emitted off the per-operation success path, so an
 * unrecorded event costs one flag test on an error or control path and nothing on the data path. Read them
 * with {@code jfr print --events 'jfabric.*' recording.jfr}.
 */
package io.jfabric.util.jfr;
