package io.jfabric.examples.rpc;

/** Something whose callback is ready to run from {@link RpcEngine#trigger}; linked in place, so queueing allocates nothing. */
abstract class Triggerable {
    Triggerable nextReady;

    abstract void fire();
}
