package io.jfabric.provider.verbs;

import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.RmaIov;
import io.jfabric.provider.verbs.ffi.verbs_h;
import io.jfabric.util.OpRequest;

/**
 * The RMA entry points (fi_rma(3)) on the QP: one IBV_WR_RDMA_READ or IBV_WR_RDMA_WRITE work request
 * (RDMA_WRITE_WITH_IMM for writedata) against one remote range, as libfabric's verbs (rma_iov_limit 1).
 */
final class VerbsRma {
    private static final long WRITE_FLAGS = OpFlags.RMA | OpFlags.WRITE;
    private static final long READ_FLAGS = OpFlags.RMA | OpFlags.READ;

    private final VerbsCm cm;
    private final VerbsQp qp;

    VerbsRma(VerbsCm cm, VerbsQp qp) {
        this.cm = cm;
        this.qp = qp;
    }

    int read(OpRequest op) {
        // a read cannot be injected: its data comes back into the caller's buffer
        return post(op, verbs_h.IBV_WR_RDMA_READ, op.flags & ~OpFlags.INJECT, READ_FLAGS);
    }

    int write(OpRequest op) {
        boolean data = (op.flags & OpFlags.REMOTE_CQ_DATA) != 0;
        return post(op, data ? verbs_h.IBV_WR_RDMA_WRITE_WITH_IMM : verbs_h.IBV_WR_RDMA_WRITE, op.flags, WRITE_FLAGS);
    }

    private int post(OpRequest op, int opcode, long opFlags, long compFlags) {
        if (op.rmaCount != 1) {
            return -Errno.EINVAL; // rma_iov_limit is 1, as libfabric's verbs
        }
        int rc = qp.fillSend(op);
        if (rc == 0) {
            rc = cm.txReady();
        }
        if (rc != 0) {
            return rc;
        }
        RmaIov remote = op.rmaIov[0];
        return qp.postSend(opcode, op.data, remote.addr, remote.key, op.context, opFlags, compFlags);
    }
}
