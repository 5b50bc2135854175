package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.*;

import io.jfabric.CqEntry;
import io.jfabric.OpFlags;
import io.jfabric.provider.tcp.wire.CmMessage;
import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.provider.tcp.wire.WireOrder;

import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer of the other endianness, played by a raw socket: its connreq carries conn_data = 1 in big-endian
 * order, so the provider must read and write data headers in network order (libfabric's
 * {@code tcpx_hdr_bswap} on both sides), including the ACK it sends back.
 */
@Timeout(30)
class ByteOrderTest {
    @Test
    void bigEndianPeerIsServedInNetworkOrder() throws Exception {
        Assumptions.assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN, "needs a little-endian host");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment req = arena.allocate(CmMessage.HEADER_SIZE);
            CmMessage.encode(req, CmMessage.TYPE_CONNREQ, null, 0);
            req.set(ValueLayout.JAVA_LONG_UNALIGNED, 24, Long.reverseBytes(1L)); // a big-endian host's "1"
            try (RawPeer peer = new RawPeer(req)) {
                Loopback.Side server = peer.server;
                OutputStream out = peer.out;
                InputStream in = peer.in;
                assertEquals(0, CmMessage.decodeHeader(peer.connresp, CmMessage.TYPE_CONNRESP));

                // a big-endian message with remote CQ data that asks for an ACK
                MemorySegment frame = arena.allocate(24 + 5);
                int hl = DataHeader.encodeMsg(frame, WireOrder.NETWORK,
                        DataHeader.FLAG_REMOTE_CQ_DATA | DataHeader.FLAG_DELIVERY_COMPLETE, 0x1122334455667788L, 0, 5);
                frame.asSlice(hl, 5).copyFrom(MemorySegment.ofArray("hello".getBytes()));
                MemorySegment rx = arena.allocate(16);
                assertEquals(0, server.ep.recv(rx, null, 0, "r"));
                out.write(frame.toArray(ValueLayout.JAVA_BYTE));
                CqEntry c = server.waitCq(10_000);
                assertEquals(5, c.len);
                assertEquals(0x1122334455667788L, c.data);
                assertTrue((c.flags & OpFlags.REMOTE_CQ_DATA) != 0);
                assertEquals("hello", new String(rx.asSlice(0, 5).toArray(ValueLayout.JAVA_BYTE)));

                // the ACK comes back big-endian: size 16 reads as 16 only in network order
                MemorySegment ack = MemorySegment.ofArray(in.readNBytes(16));
                assertEquals(16, DataHeader.decodeBase(ack, WireOrder.NETWORK, 1 << 20));
                assertTrue(DataHeader.isAck(ack));

                // and a message the provider sends is big-endian too
                MemorySegment tx = arena.allocate(3);
                tx.copyFrom(MemorySegment.ofArray(new byte[] {1, 2, 3}));
                assertEquals(0, server.ep.senddata(tx, null, 42, 0, "s"));
                server.waitCq(10_000);
                MemorySegment got = MemorySegment.ofArray(in.readNBytes(24 + 3));
                assertEquals(24, DataHeader.decodeBase(got, WireOrder.NETWORK, 1 << 20));
                assertEquals(42, DataHeader.cqData(got, WireOrder.NETWORK));
                assertEquals(3, DataHeader.payloadLength(got, WireOrder.NETWORK));
                assertEquals(3, got.get(ValueLayout.JAVA_BYTE, 26));
            }
        }
    }
}
