package io.jfabric.provider.tcp;

import io.jfabric.provider.tcp.wire.CmMessage;
import io.jfabric.provider.tcp.wire.WireOrder;
import io.jfabric.provider.tcp.wire.WireStatus;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * An accepted socket whose connreq is being read, then the {@code info.handle} of its CONNREQ event until
 * the application accepts (an endpoint takes the socket) or rejects it. Mirrors libfabric tcp's
 * {@code struct tcpx_conn_handle}. The connreq is read exactly (header, then the announced data), never
 * beyond, so any bytes that follow stay in the socket for the endpoint.
 */
final class ConnRequest {
    final SocketChannel ch;
    private final ByteBuffer hdr = ByteBuffer.allocateDirect(CmMessage.HEADER_SIZE);
    /** The whole header, independent of the buffer's position. */
    private final MemorySegment hdrSeg = MemorySegment.ofBuffer(hdr);

    /** The connreq's header, once read: the peer's same-host announcement is there (TcpSameHost). */
    MemorySegment header() {
        return hdrSeg;
    }
    private ByteBuffer data;
    private final long createdNanos = System.nanoTime();
    WireOrder order = WireOrder.HOST;
    byte[] cmData;
    /** Set once handed to an endpoint or rejected. */
    volatile boolean consumed;

    ConnRequest(SocketChannel ch) {
        this.ch = ch;
    }

    long ageNanos() {
        return System.nanoTime() - createdNanos;
    }

    /**
     * Reads more of the connreq.
     *
     * @return 1 when complete and valid, 0 when more bytes are needed, or a negative WireStatus / -1 at EOF
     */
    int readRequest() throws IOException {
        if (hdr.hasRemaining()) {
            if (ch.read(hdr) < 0) {
                return -1;
            }
            if (hdr.hasRemaining()) {
                return 0;
            }
            int n = CmMessage.decodeHeader(hdrSeg, CmMessage.TYPE_CONNREQ);
            if (n < 0) {
                return n;
            }
            order = CmMessage.peerOrder(hdrSeg);
            data = ByteBuffer.allocate(n);
        }
        if (data.hasRemaining()) {
            if (ch.read(data) < 0) {
                return -1;
            }
            if (data.hasRemaining()) {
                return 0;
            }
        }
        cmData = data.capacity() == 0 ? null : data.array();
        return 1;
    }

    InetSocketAddress peer() throws IOException {
        return (InetSocketAddress) ch.getRemoteAddress();
    }

    InetSocketAddress local() throws IOException {
        return (InetSocketAddress) ch.getLocalAddress();
    }

    static String describe(int status) {
        return status == -1 ? "peer closed before its connreq was complete" : WireStatus.describe(status);
    }
}
