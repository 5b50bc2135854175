package io.jfabric.provider.tcp;

import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.provider.tcp.wire.CmMessage;
import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.provider.tcp.wire.WireOrder;
import io.jfabric.util.SameHostToken;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same-host frames from a peer played by a raw socket: refused from a peer that never announced itself (as
 * libfabric never does), READY sent only to one that did, and a copy that fails closes the connection with the
 * error instead of completing anything.
 */
@Timeout(30)
class SameHostWireTest {
    private static final WireOrder HOST = WireOrder.HOST;

    /** A raw peer connects (announcing itself or not), the endpoint accepts; the frame is then sent. */
    private static void withRawPeer(boolean announce, Body body) throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment req = arena.allocate(CmMessage.HEADER_SIZE);
            CmMessage.encode(req, CmMessage.TYPE_CONNREQ, null, 0);
            if (announce) {
                // this very process: its token reads back, so the endpoint trusts the raw peer
                CmMessage.announceSameHost(req, SameHostToken.pid(), SameHostToken.address(), SameHostToken.value());
            }
            try (RawPeer peer = new RawPeer(req)) {
                assertEquals(0, CmMessage.decodeHeader(peer.connresp, CmMessage.TYPE_CONNRESP));
                assertEquals(SameHostToken.pid(), CmMessage.sameHostPid(peer.connresp), "the endpoint announces itself");
                body.run(peer.server, peer.out, peer.in, arena);
            }
        }
    }

    interface Body {
        void run(Loopback.Side server, OutputStream out, InputStream in, Arena arena) throws Exception;
    }

    private static byte[] sameHostFrame(Arena arena, long address, long length) {
        MemorySegment h = arena.allocate(DataHeader.MAX_HDR_SIZE);
        MemorySegment fake = MemorySegment.ofAddress(address).reinterpret(length);
        int hl = DataHeader.encodeSameHostMsg(h, HOST, 0, 0, 0, new MemorySegment[] {fake}, 1);
        return h.asSlice(0, hl).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void aPeerThatNeverAnnouncedItselfGetsNoReadyAndItsSameHostFramesCloseTheConnection() throws Exception {
        withRawPeer(false, (server, out, in, arena) -> {
            MemorySegment rx = arena.allocate(1 << 20);
            assertEquals(0, server.ep.recv(rx, null, 0, "r"));
            out.write(sameHostFrame(arena, rx.address(), 1 << 20));
            CqErrEntry err = server.waitCqError(10_000);
            assertEquals(Errno.ECANCELED, err.err, "the posted receive, never matched, fails with the connection");
            assertEquals("r", err.context);
            assertEquals(Errno.EPROTO, server.waitEqError(10_000).err, "the EQ names the protocol error");
            assertEquals(-1, in.read(), "nothing (no READY) was sent before the connection closed");
        });
    }

    @Test
    void aReadyFrameFromAPeerThatNeverAnnouncedItselfClosesTheConnection() throws Exception {
        withRawPeer(false, (server, out, in, arena) -> {
            MemorySegment rx = arena.allocate(64);
            assertEquals(0, server.ep.recv(rx, null, 0, "r"));
            MemorySegment ready = arena.allocate(DataHeader.BASE_SIZE);
            // READY is a jfabric frame: an endpoint that announced itself but heard nothing back still refuses it
            // from a peer whose own announcement it never verified
            DataHeader.encodeSameHostReady(ready, HOST);
            out.write(ready.toArray(ValueLayout.JAVA_BYTE));
            MemorySegment frame = arena.allocate(DataHeader.MAX_HDR_SIZE);
            int hl = DataHeader.encodeMsg(frame, HOST, 0, 0, 0, 0);
            out.write(frame.asSlice(0, hl).toArray(ValueLayout.JAVA_BYTE));
            // READY itself is accepted (it only says the peer can read us); the endpoint goes on serving
            assertEquals(0, server.waitCq(10_000).len);
        });
    }

    @Test
    void aCopyThatFailsClosesTheConnectionWithTheErrorAndCompletesNothing() throws Exception {
        withRawPeer(true, (server, out, in, arena) -> {
            MemorySegment ready = MemorySegment.ofArray(in.readNBytes(DataHeader.BASE_SIZE));
            assertEquals(DataHeader.BASE_SIZE, DataHeader.decodeBase(ready, HOST, 1 << 20));
            assertEquals(DataHeader.OP_SAME_HOST_READY, DataHeader.op(ready), "the endpoint reads us and says so");
            MemorySegment rx = arena.allocate(1 << 16);
            assertEquals(0, server.ep.recv(rx, null, 0, "r"));
            out.write(sameHostFrame(arena, 4096, 1 << 16)); // a page no process maps
            CqErrEntry err = server.waitCqError(10_000);
            assertEquals(Errno.EFAULT, err.err);
            assertEquals("r", err.context);
            assertEquals(-1, in.read(), "no ACK: the connection closed");
            assertTrue(server.ep.toString().contains("open=false"), server.ep.toString());
        });
    }
}
