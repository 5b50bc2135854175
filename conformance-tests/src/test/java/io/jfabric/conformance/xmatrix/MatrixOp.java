package io.jfabric.conformance.xmatrix;

import io.jfabric.Caps;

/** The operations of the cross-implementation matrix, with what each needs from both sides. */
enum MatrixOp {
    SEND("send/recv", Caps.MSG, false),
    INJECT("inject", Caps.MSG, true),
    SENDDATA("senddata", Caps.MSG, false),
    INJECTDATA("injectdata", Caps.MSG, true),
    SENDV("sendv (2 iov)", Caps.MSG, false),
    TAGGED("tsend/trecv", Caps.TAGGED, false),
    PEEK_CLAIM("tsend, trecv FI_PEEK|FI_CLAIM then FI_CLAIM", Caps.TAGGED, false),
    MULTI_RECV("2 sends into one FI_MULTI_RECV buffer", Caps.MULTI_RECV, false),
    READ("read", Caps.RMA, false),
    WRITE("write", Caps.RMA, false),
    WRITEDATA("writedata", Caps.RMA, false),
    INJECT_WRITE("inject_write", Caps.RMA, true),
    /** The writedata bug: more CQ data than the target's CQ holds while the target does not read it. */
    WRITEDATA_BURST("writedata x" + MatrixOps.BURST + " while the target does not read its CQ", Caps.RMA, false);

    final String description;
    final long cap;
    final boolean inject;

    MatrixOp(String description, long cap, boolean inject) {
        this.description = description;
        this.cap = cap;
        this.inject = inject;
    }

    String id() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    boolean isRma() {
        return cap == Caps.RMA;
    }
}
