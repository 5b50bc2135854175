package io.jfabric.provider.rxm;

/**
 * Work a connection holds back because its core endpoint said EAGAIN (libfabric's rxm_deferred_tx_entry):
 * a ready packet, a send with SAR segments left, or a rendezvous receive with reads left. The kinds are the
 * pooled objects themselves, not records around them, so deferring allocates nothing; {@link RxmCm} drains
 * the queue with one switch over the sealed kinds.
 */
sealed interface DeferredWork permits TxBuf, TxOp, RecvEntry {
}
