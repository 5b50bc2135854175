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
    private final VerbsQp qp;

    VerbsRma(VerbsQp qp) {
        this.qp = qp;
    }

    int read(OpRequest op) {
        // a read cannot be injected: its data comes back into the caller's buffer
        return post(op, verbs_h.IBV_WR_RDMA_READ, op.flags & ~OpFlags.INJECT, OpFlags.RMA | OpFlags.READ);
    }

    int write(OpRequest op) {
        boolean data = (op.flags & OpFlags.REMOTE_CQ_DATA) != 0;
        return post(op, data ? verbs_h.IBV_WR_RDMA_WRITE_WITH_IMM : verbs_h.IBV_WR_RDMA_WRITE, op.flags,
                OpFlags.RMA | OpFlags.WRITE);
    }

    private int post(OpRequest op, int opcode, long opFlags, long compFlags) {
        if (op.rmaCount != 1) {
            return -Errno.EINVAL; // rma_iov_limit is 1, as libfabric's verbs
        }
        RmaIov remote = op.rmaIov[0];
        return qp.send(op, opcode, remote.addr, remote.key, opFlags, compFlags);
    }
}
