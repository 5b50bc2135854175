package io.jfabric.netty;

import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;

import java.io.IOException;

/**
 * The connection events of one connected channel's endpoint (its EQ), turned into what the stream's
 * {@link FrameStream.Listener} expects: FI_CONNECTED is the RDM stream's ACCEPT, on both sides: the client
 * learns the server's window and slot size from the accept's data, the server uses the connection request's. FI_SHUTDOWN before the peer's closing FIN, or an error entry, breaks the
 * stream with an exception naming the peer.
 */
final class CmEvents {
    /** Completions read before a FI_SHUTDOWN is believed, so a FIN already delivered is seen first. */
    private static final int DRAIN_TURNS = 64;

    private final EqEntry entry = new EqEntry();
    private final EqErrEntry error = new EqErrEntry();
    final FrameStream stream;
    private final byte[] peerName;
    /** On the accepting side, the client's connection data, taken as the peer's at FI_CONNECTED; else null. */
    private final byte[] clientData;

    private CmEvents(FrameStream stream, byte[] peerName, byte[] clientData) {
        this.stream = stream;
        this.peerName = peerName;
        this.clientData = clientData;
    }

    /** For {@code stream}'s client, which dialled the endpoint {@code serverName}. */
    static CmEvents client(FrameStream stream, byte[] serverName) {
        return new CmEvents(stream, serverName, null);
    }

    /** For {@code stream}'s accepting side, whose client sent {@code clientData} with its connection request. */
    static CmEvents accepted(FrameStream stream, byte[] clientName, byte[] clientData) {
        return new CmEvents(stream, clientName, clientData);
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
                String why = error.provErrno != 0 ? eq.strerror(error.provErrno, error.errData)
                        : Errno.strerror(error.err);
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
        if (clientData != null) {
            cm = clientData;
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
