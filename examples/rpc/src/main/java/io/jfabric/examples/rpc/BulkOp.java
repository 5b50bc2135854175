package io.jfabric.examples.rpc;

/** Direction of a bulk transfer, seen from the side that starts it (Mercury's HG_BULK_PULL / HG_BULK_PUSH). */
public enum BulkOp {
    /** RMA read: remote memory into the local handle. */
    PULL,
    /** RMA write: the local handle into remote memory. */
    PUSH
}
