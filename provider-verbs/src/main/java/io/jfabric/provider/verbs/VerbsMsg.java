package io.jfabric.provider.verbs;

import io.jfabric.OpFlags;
import io.jfabric.provider.verbs.ffi.verbs_h;
import io.jfabric.util.OpRequest;

/**
 * The msg entry points (fi_msg(3)) on the QP: a send is one IBV_WR_SEND work request (SEND_WITH_IMM for the
 * data forms, the data in imm_data), a receive one receive work request. Verbs has no tagged messages.
 */
final class VerbsMsg {
    private static final long SEND_FLAGS = OpFlags.SEND | OpFlags.MSG;

    private final VerbsCm cm;
    private final VerbsQp qp;

    VerbsMsg(VerbsCm cm, VerbsQp qp) {
        this.cm = cm;
        this.qp = qp;
    }

    int send(OpRequest op) {
        int rc = qp.fillSend(op);
        if (rc == 0) {
            rc = cm.txReady();
        }
        if (rc != 0) {
            return rc;
        }
        int opcode = (op.flags & OpFlags.REMOTE_CQ_DATA) != 0 ? verbs_h.IBV_WR_SEND_WITH_IMM : verbs_h.IBV_WR_SEND;
        return qp.postSend(opcode, op.data, 0, 0, op.context, op.flags, SEND_FLAGS);
    }

    int recv(OpRequest op) {
        int rc = qp.fillRecv(op);
        if (rc == 0) {
            rc = cm.rxReady();
        }
        return rc != 0 ? rc : qp.postRecv(op.context);
    }
}
