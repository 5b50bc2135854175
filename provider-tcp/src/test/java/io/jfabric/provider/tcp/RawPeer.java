package io.jfabric.provider.tcp;

import io.jfabric.BindFlags;
import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.FabricInfo;
import io.jfabric.PassiveEndpoint;
import io.jfabric.Progress;
import io.jfabric.provider.tcp.wire.CmMessage;
import io.jfabric.util.Sockaddr;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A peer played by a raw socket, for tests of what the provider does with frames no jfabric or libfabric peer would
 * send: it sends the connreq it is given, the provider's endpoint accepts it, and {@link #connresp} holds the
 * provider's answer.
 */
final class RawPeer implements AutoCloseable {
    final Loopback.Side server;
    final PassiveEndpoint pep;
    final Socket socket;
    final OutputStream out;
    final InputStream in;
    final MemorySegment connresp;

    RawPeer(MemorySegment connreq) throws IOException {
        FabricInfo info = Loopback.loopbackInfo(false, Progress.MANUAL);
        server = Loopback.open(info);
        pep = server.fabric.openPassiveEndpoint(info);
        pep.bind(server.eq);
        pep.listen();
        InetSocketAddress addr = Sockaddr.toInet(pep.getName());
        socket = new Socket("127.0.0.1", addr.getPort());
        socket.setSoTimeout(10_000);
        out = socket.getOutputStream();
        in = socket.getInputStream();
        out.write(connreq.toArray(ValueLayout.JAVA_BYTE));
        EqEntry e = server.waitEq(EqEvent.CONNREQ, 10_000);
        server.ep = server.domain.openEndpoint(e.info);
        server.ep.bind(server.eq);
        server.ep.bind(server.cq, BindFlags.TRANSMIT | BindFlags.RECV);
        server.ep.accept(null);
        server.waitEq(EqEvent.CONNECTED, 10_000);
        connresp = MemorySegment.ofArray(in.readNBytes(CmMessage.HEADER_SIZE));
    }

    @Override
    public void close() throws IOException {
        socket.close();
        if (server.ep != null) {
            server.ep.close();
        }
        pep.close();
        Loopback.closeSide(server);
        server.fabric.close();
    }
}
