package io.jfabric.conformance.xmatrix;

import io.jfabric.Caps;

/** The operations of the cross-implementation matrix, with what each needs from both sides. */
enum MatrixOp {
    // messages
    SEND("send/recv", Caps.MSG), INJECT("inject", Caps.MSG),
    SENDDATA("senddata", Caps.MSG), INJECTDATA("injectdata", Caps.MSG),
    SENDV("sendv (2 iov)", Caps.MSG),
    // tagged messages and multi-receive (rxm)
    TAGGED("tsend/trecv", Caps.TAGGED),
    PEEK_CLAIM("tsend, trecv FI_PEEK|FI_CLAIM then FI_CLAIM", Caps.TAGGED),
    MULTI_RECV("2 sends into one FI_MULTI_RECV buffer", Caps.MULTI_RECV),
    // RMA
    READ("read", Caps.RMA), WRITE("write", Caps.RMA),
    WRITEDATA("writedata", Caps.RMA), INJECT_WRITE("inject_write", Caps.RMA),
    /** The writedata bug: more CQ data than the target's CQ holds while the target does not read it. */
    WRITEDATA_BURST("writedata x" + MatrixOps.BURST + " while the target does not read its CQ", Caps.RMA),
    // atomics (rxm's rxm_ctrl_atomic protocol)
    ATOMIC("atomic, fetch_atomic, compare_atomic: every op on FI_INT64, FI_UINT64, FI_DOUBLE", Caps.ATOMIC);

    final String description;
    final long cap;
    /** An inject form: no completion, and only up to the initiator's inject_size. */
    final boolean inject = name().startsWith("INJECT");

    MatrixOp(String description, long cap) {
        this.description = description;
        this.cap = cap;
    }

    String id() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    boolean isRma() {
        return cap == Caps.RMA;
    }
}
