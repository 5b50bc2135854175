package io.jfabric.provider.verbs;

import io.jfabric.OpFlags;
import io.jfabric.provider.verbs.ffi.verbs_h;
import io.jfabric.util.OpRequest;

/**
 * The msg entry points (fi_msg(3)) on the QP: a send is one IBV_WR_SEND work request (SEND_WITH_IMM for the
 * data forms, the data in imm_data), a receive one receive work request. Verbs has no tagged messages.
 */
final class VerbsMsg {
    private final VerbsQp qp;

    VerbsMsg(VerbsQp qp) {
        this.qp = qp;
    }

    int send(OpRequest op) {
        int opcode = (op.flags & OpFlags.REMOTE_CQ_DATA) != 0 ? verbs_h.IBV_WR_SEND_WITH_IMM : verbs_h.IBV_WR_SEND;
        return qp.send(op, opcode, 0, 0, op.flags, OpFlags.SEND | OpFlags.MSG);
    }

    int recv(OpRequest op) {
        return qp.recv(op);
    }
}
