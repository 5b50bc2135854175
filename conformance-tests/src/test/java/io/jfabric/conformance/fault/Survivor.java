package io.jfabric.conformance.fault;

import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.FabricInfo;
import io.jfabric.conformance.EndpointPair;
import io.jfabric.conformance.FabricCase;
import io.jfabric.conformance.PeerProcess;
import io.jfabric.conformance.Poller;
import io.jfabric.conformance.Side;
import io.jfabric.conformance.StateDump;

import java.io.IOException;
import java.util.HexFormat;

/** The test's end of a fault scenario: one {@link Side} joined to a {@link FaultPeer}. */
final class Survivor {
    static final long SETUP_MS = 30_000;
    /** Connects tried when they end with EHOSTUNREACH (see {@link #join}). */
    static final int CONNECT_ATTEMPTS = 3;

    final Side side;
    final Poller poller = new Poller();
    private final EqEntry event = new EqEntry();
    private final EqErrEntry eventError = new EqErrEntry();

    private Survivor(Side side) {
        this.side = side;
    }

    /** Opens a side from {@code info} and connects it to the peer (MSG) or exchanges addresses with it (RDM). */
    static Survivor join(FabricCase c, FabricInfo info, PeerProcess peer, StateDump dump) throws InterruptedException,
            IOException {
        return join(c, info, peer, dump, new EndpointPair.Options());
    }

    /** As {@link #join(FabricCase, FabricInfo, PeerProcess, StateDump)}, opening the side with {@code o}. */
    static Survivor join(FabricCase c, FabricInfo info, PeerProcess peer, StateDump dump, EndpointPair.Options o)
            throws InterruptedException, IOException {
        byte[] addr = peer.expectAddress(SETUP_MS);
        Survivor s = open(c, info, dump, o);
        if (c.isMsg()) {
            s.side.ep.connect(addr, null);
            // right after a link flap the host's neighbour entry for the peer may still be failed: the connect
            // ends with EHOSTUNREACH, and an application opens a new endpoint and connects again, as this does
            for (int attempt = 1; attempt < CONNECT_ATTEMPTS; attempt++) {
                int rc = s.poller.awaitEvent(s.side.eq, s.event, s.eventError, SETUP_MS);
                if (rc == EqEvent.CONNECTED) {
                    peer.expect("CONNECTED", SETUP_MS);
                    return s;
                }
                if (rc != -Errno.EAVAIL || s.eventError.err != Errno.EHOSTUNREACH) {
                    org.junit.jupiter.api.Assertions.fail("connect to the fault peer: expected FI_CONNECTED, got "
                            + (rc == -Errno.EAVAIL ? "error " + s.eventError : EqEvent.toString(rc)));
                }
                System.out.println("[fault] connect attempt " + attempt + " found no route (EHOSTUNREACH); again");
                s = open(c, info, dump, o);
                s.side.ep.connect(addr, null);
            }
            s.poller.expectEvent(s.side.eq, EqEvent.CONNECTED, SETUP_MS, "connect to the fault peer");
            peer.expect("CONNECTED", SETUP_MS);
        } else {
            s.side.peer = s.side.av.insert(addr);
            peer.send("PEER " + HexFormat.of().formatHex(s.side.ep.getName()));
            peer.expect("READY", SETUP_MS);
        }
        return s;
    }

    private static Survivor open(FabricCase c, FabricInfo info, StateDump dump, EndpointPair.Options o) {
        Survivor s = new Survivor(new Side("survivor", c, dump));
        dump.reporter(s.side::toString);
        EndpointPair.openSide(s.side, c, dump, o, info, s.poller);
        return s;
    }

    /**
     * Reads the EQ once: true when it reports the connection's end (FI_SHUTDOWN or an error entry). Always
     * false for connectionless endpoints, which have none.
     */
    boolean connectionEnded() {
        if (side.eq == null) {
            return false;
        }
        int rc = side.eq.read(event, 0);
        if (rc == EqEvent.SHUTDOWN) {
            return true;
        }
        if (rc == -Errno.EAVAIL) {
            side.eq.readError(eventError, 0);
            return true;
        }
        return false;
    }
}
