package io.jfabric.provider.tcp;

import io.jfabric.Errno;

import java.io.IOException;
import java.net.NoRouteToHostException;

/**
 * The errno a failed connect reports, as libfabric's tcp reports the socket's: java.nio gives exceptions, not
 * errno values, so the kinds it distinguishes are mapped and its message read for the rest. After a link flap
 * the first connect can fail with EHOSTUNREACH (the neighbour entry is still failed), which an application
 * retries, where ECONNREFUSED would say nobody listens.
 */
final class ConnectErrors {
    private ConnectErrors() {
    }

    static int errno(IOException e) {
        if (e instanceof NoRouteToHostException) {
            return Errno.EHOSTUNREACH;
        }
        String m = e.getMessage() == null ? "" : e.getMessage();
        if (m.contains("Network is unreachable")) {
            return Errno.ENETUNREACH;
        }
        if (m.contains("timed out")) {
            return Errno.ETIMEDOUT;
        }
        if (m.contains("Connection reset")) {
            return Errno.ECONNRESET;
        }
        return Errno.ECONNREFUSED; // ConnectException, and what else ends a connect: nobody to talk to
    }
}
