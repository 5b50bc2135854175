package io.jfabric.provider.verbs;

import io.jfabric.Errno;
import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.provider.verbs.ffi.verbs_h;

/**
 * Maps {@code enum ibv_wc_status} to libfabric error numbers, as libfabric's verbs does for its error
 * completions; the status itself stays in {@code prov_errno} and its text ({@code ibv_wc_status_str})
 * in the error data.
 */
final class WcStatus {
    private WcStatus() {
    }

    static int toErrno(int status, boolean recv) {
        return switch (status) {
            case 1 -> recv ? Errno.ETRUNC : Errno.EMSGSIZE; // LOC_LEN_ERR: message longer than the receive buffer
            case 4, 8 -> Errno.EACCES;                        // LOC_PROT_ERR, LOC_ACCESS_ERR: bad lkey or range
            case 5 -> Errno.ECANCELED;                        // WR_FLUSH_ERR: QP went to error; op never ran
            case 9, 11, 15 -> Errno.EREMOTEIO;                // REM_INV_REQ_ERR, REM_OP_ERR, REM_INV_RD_REQ_ERR
            case 10 -> Errno.EACCES;                          // REM_ACCESS_ERR: bad rkey, range or rights at the target
            case 12, 20 -> Errno.ETIMEDOUT;                   // RETRY_EXC_ERR, RESP_TIMEOUT_ERR: peer unreachable
            case 13 -> Errno.ENORX;                           // RNR_RETRY_EXC_ERR: peer never posted a receive
            case 16 -> Errno.ECONNABORTED;                    // REM_ABORT_ERR
            default -> Errno.EIO;
        };
    }

    /**
     * Whether the status says the peer stopped answering (the transport's retries or the response timer ran
     * out): the QP is in the error state and its connection is over, though rdma_cm has seen nothing of it.
     */
    static boolean peerLost(int status) {
        return status == 12 || status == 20;
    }

    static String text(int status) {
        String s = NativeLibrary.string(verbs_h.ibv_wc_status_str(status));
        return s == null ? "ibv_wc_status " + status : s;
    }
}
