package io.jfabric.netty;

import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;

import java.io.IOException;

/**
 * The connection events of one connected channel's endpoint (its EQ), turned into what the stream's
 * {@link FrameStream.Listener} expects: FI_CONNECTED on the client is the RDM stream's ACCEPT; on the accepting
 * side it opens the client's window. FI_SHUTDOWN before the peer's closing FIN, or an error entry, breaks the
 * stream with an exception naming the peer.
 */
final class CmEvents {
    /** Completions read before a FI_SHUTDOWN is believed, so a FIN already delivered is seen first. */
    private static final int DRAIN_TURNS = 64;

    private final EqEntry entry = new EqEntry();
    private final EqErrEntry error = new EqErrEntry();
    final FrameStream stream;
    private final byte[] peerName;
    /** On the accepting side, the client's window, granted at FI_CONNECTED; -1 on the client. */
    private final int acceptedWindow;

    private CmEvents(FrameStream stream, byte[] peerName, int acceptedWindow) {
        this.stream = stream;
        this.peerName = peerName;
        this.acceptedWindow = acceptedWindow;
    }

    /** For {@code stream}'s client, which dialled the endpoint {@code serverName}. */
    static CmEvents client(FrameStream stream, byte[] serverName) {
        return new CmEvents(stream, serverName, -1);
    }

    /** For {@code stream}'s accepting side, whose client's connection data offered {@code clientWindow}. */
    static CmEvents accepted(FrameStream stream, byte[] clientName, int clientWindow) {
        return new CmEvents(stream, clientName, clientWindow);
    }

    /** Reads one event, if any, and tells {@code listener}; returns 1 when there was one. */
    int poll(FrameStream.Listener listener) {
        EventQueue eq = stream.link.eq;
        int ev = eq.read(entry, 0);
        if (ev == -Errno.EAGAIN) {
            return 0;
        }
        if (ev == -Errno.EAVAIL) {
            if (eq.readError(error, 0) > 0) {
                String why = eq.strerror(error.provErrno, error.errData);
                listener.broken(new IOException("jfabric peer " + SockAddr.text(peerName) + ": connection failed: "
                        + why + " (errno " + error.err + ")"));
            }
            return 1;
        }
        byte[] cm = entry.cmData;
        entry.cmData = null;
        entry.info = null;
        entry.fid = null;
        if (ev == EqEvent.CONNECTED) {
            connected(stream, listener, cm);
        } else if (ev == EqEvent.SHUTDOWN) {
            for (int i = 0; i < DRAIN_TURNS && stream.poll() > 0; i++) {
                // the peer's last frames come before its shutdown: take them first
            }
            if (!stream.peerClosed) {
                listener.broken(new IOException("jfabric peer " + SockAddr.text(peerName)
                        + " shut the connection down (FI_SHUTDOWN) before closing the stream"));
            }
        }
        return 1;
    }

    private void connected(FrameStream stream, FrameStream.Listener listener, byte[] cm) {
        if (acceptedWindow >= 0) {
            stream.grant(acceptedWindow);
            return;
        }
        int window = MsgPath.window(cm);
        int slotSize = MsgPath.slotSize(cm);
        if (window < 1 || slotSize < Frame.HEADER + 1) {
            listener.broken(new IOException("malformed stream from jfabric peer " + SockAddr.text(peerName)
                    + ": its accept carried " + (cm == null ? "no" : cm.length + " bytes of") + " connection data,"
                    + " window " + window + ", slot " + slotSize));
            return;
        }
        listener.accepted(peerName, window, slotSize);
    }
}
