package io.jfabric.provider.tcp;

import io.jfabric.Errno;
import io.jfabric.util.OpRequest;

/**
 * The tagged entry points. libfabric 1.17 tcp carries them as op_msg frames with TCPX_TAGGED and the 8-byte
 * tag extension, and offers them only on its shared-receive-context info; jfabric offers them on the endpoint
 * itself when it is opened with FI_TAGGED (see TcpProvider), and answers -FI_ENOSYS otherwise.
 */
final class TcpTagged {
    private final TcpMsg msg;
    /** Opened with FI_TAGGED: tagged calls work and the peer's tagged frames are accepted. */
    private final boolean enabled;

    TcpTagged(TcpMsg msg, boolean enabled) {
        this.msg = msg;
        this.enabled = enabled;
    }

    int send(OpRequest op) {
        return enabled ? msg.send(op, true) : -Errno.ENOSYS;
    }

    int recv(OpRequest op) {
        return enabled ? msg.recv(op, true) : -Errno.ENOSYS;
    }
}
