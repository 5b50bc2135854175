package io.jfabric.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.provider.rxm.wire.CmData;
import io.jfabric.provider.tcp.wire.CmMessage;
import io.jfabric.util.Sockaddr;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A raw Java socket plays a hostile peer against a real tcp;ofi_rxm endpoint over loopback: garbage
 * instead of a CM header, a CM header with a foreign version, a length field that lies, rxm connect data
 * from another protocol version, and a header cut short. Each time that one connection must end (closed,
 * or refused with a nack) while the endpoint keeps going, and a well-behaved rxm endpoint can then still
 * exchange a verified tagged message with it.
 */
@Timeout(30)
class RxmHostilePeerTest {
    private final Arena arena = Arena.ofShared();
    private Node victim;
    private Node friend;

    /** One tcp;ofi_rxm RDM endpoint with its own fabric, domain, AV and CQ. */
    private static final class Node implements AutoCloseable {
        final Fabric fabric;
        final Domain domain;
        final AddressVector av;
        final CompletionQueue cq;
        final Endpoint ep;
        final CqEntry[] batch = CqEntry.array(8);
        int completions;
        int errors;

        Node() {
            FabricInfo hints = Hints.create().caps(Caps.MSG | Caps.TAGGED).epType(EndpointType.RDM)
                    .provider("tcp;ofi_rxm").build();
            FabricInfo info = Fabrics.getInfo(Fabrics.API_VERSION, "127.0.0.1", null, Fabrics.SOURCE, hints).getFirst();
            fabric = Fabrics.openFabric(info);
            domain = fabric.openDomain(info);
            av = domain.openAv(AvAttr.of(AvType.TABLE));
            CqAttr attr = new CqAttr();
            attr.format = CqFormat.TAGGED;
            cq = domain.openCq(attr);
            ep = domain.openEndpoint(info);
            ep.bind(av);
            ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
            ep.enable();
        }

        void poll() {
            int n = cq.readFrom(batch, batch.length);
            if (n > 0) {
                completions += n;
            } else if (n == -Errno.EAVAIL) {
                if (cq.readError(new CqErrEntry(), 0) == 1) {
                    errors++;
                }
            }
        }

        @Override
        public void close() {
            ep.close();
            cq.close();
            av.close();
            domain.close();
            fabric.close();
        }
    }

    @AfterEach
    void tearDown() {
        if (friend != null) {
            friend.close();
        }
        if (victim != null) {
            victim.close();
        }
        arena.close();
    }

    @Test
    void garbageInsteadOfACmHeader() throws Exception {
        byte[] junk = new byte[64];
        new SplittableRandom(9).nextBytes(junk);
        hostileThenWellBehaved(junk, false);
    }

    @Test
    void cmHeaderOfAForeignVersion() throws Exception {
        byte[] h = connreq(CmData.CONNECT_SIZE);
        h[0] = 9;
        hostileThenWellBehaved(concat(h, new byte[CmData.CONNECT_SIZE]), false);
    }

    @Test
    void cmDataLengthThatLies() throws Exception {
        byte[] h = connreq(0);
        h[2] = (byte) 0xFF; // seg_size (network order) = 0xFFFF, far above the 256-byte CM data limit
        h[3] = (byte) 0xFF;
        hostileThenWellBehaved(h, false);
    }

    @Test
    void rxmConnectDataOfAnotherProtocolVersion() throws Exception {
        byte[] data = CmData.Connect.local(1234, 16384, 4096, 42).encode();
        data[0] = 7; // cm data version
        data[2] = 9; // ctrl version
        hostileThenWellBehaved(concat(connreq(data.length), data), false);
    }

    @Test
    void cmHeaderCutShortThenEof() throws Exception {
        hostileThenWellBehaved(java.util.Arrays.copyOf(connreq(CmData.CONNECT_SIZE), 13), true);
    }

    // ---- after a genuine handshake: the connection is accepted, then the frames go bad

    @Test
    void dataHeaderOfAForeignVersionAfterHandshake() throws Exception {
        byte[] f = dataHeader(16 + 64);
        f[0] = 5;
        hostileAfterHandshake(concat(f, new byte[64]), false);
    }

    @Test
    void oversizedFrameAfterHandshake() throws Exception {
        hostileAfterHandshake(dataHeader(16 + (1L << 40)), false);
    }

    @Test
    void frameThatIsNotAnRxmPacketAfterHandshake() throws Exception {
        byte[] junk = new byte[24];
        new SplittableRandom(3).nextBytes(junk);
        junk[0] = 1; // not rxm ctrl version 4
        hostileAfterHandshake(concat(dataHeader(16 + junk.length), junk), false);
    }

    @Test
    void frameCutShortThenEofAfterHandshake() throws Exception {
        hostileAfterHandshake(java.util.Arrays.copyOf(dataHeader(16 + 64), 9), true);
    }

    private void hostileAfterHandshake(byte[] bytes, boolean halfClose) throws Exception {
        hostile(bytes, halfClose, true);
    }

    private void hostileThenWellBehaved(byte[] bytes, boolean halfClose) throws Exception {
        hostile(bytes, halfClose, false);
    }

    private void hostile(byte[] bytes, boolean halfClose, boolean handshakeFirst) throws Exception {
        victim = new Node();
        int port = Sockaddr.port(victim.ep.getName());
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            if (handshakeFirst) {
                handshake(s);
            }
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            if (halfClose) {
                s.shutdownOutput();
            }
            assertTrue(endsWithinTimeout(s, 10_000), "the endpoint kept the hostile connection open for 10 s");
        }
        assertEquals(0, victim.completions, "hostile bytes produced a completion");

        // a well-behaved peer still gets a verified message through
        friend = new Node();
        long toVictim = friend.av.insert(victim.ep.getName());
        long toFriend = victim.av.insert(friend.ep.getName());
        MemorySegment src = arena.allocate(256);
        for (int i = 0; i < 256; i++) {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
        }
        MemorySegment dst = arena.allocate(256);
        assertEquals(0, victim.ep.trecv(dst, null, toFriend, 0x77, 0, "recv"));
        long end = System.nanoTime() + 10_000_000_000L;
        int rc;
        while ((rc = friend.ep.tsend(src, null, toVictim, 0x77, "send")) == -Errno.EAGAIN && System.nanoTime() < end) {
            friend.poll();
            victim.poll();
        }
        assertEquals(0, rc, "send after the hostile connection");
        while ((victim.completions == 0 || friend.completions == 0) && System.nanoTime() < end) {
            friend.poll();
            victim.poll();
        }
        assertEquals(1, victim.completions, "receive completion after the hostile connection");
        assertEquals(0, victim.errors + friend.errors, "error completions on the well-behaved connection");
        assertEquals(-1, dst.mismatch(src), "payload corrupted");
    }

    /** True when the peer closed the socket, or refused it with a nack, before the timeout; polls the victim. */
    private boolean endsWithinTimeout(Socket s, long millis) throws IOException {
        s.setSoTimeout(20);
        InputStream in = s.getInputStream();
        byte[] buf = new byte[512];
        int got = 0;
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            victim.poll();
            try {
                int n = in.read(buf, got, buf.length - got);
                if (n < 0) {
                    return true;
                }
                got += n;
                if (got >= 2 && buf[1] == CmMessage.TYPE_NACK) {
                    return true;
                }
            } catch (SocketTimeoutException e) {
                // nothing yet: keep driving the victim's progress
            } catch (IOException e) {
                return true; // reset by the victim
            }
        }
        return false;
    }

    /** Sends a libfabric-1.17-shaped rxm connect and waits for the victim's connresp + accept data. */
    private void handshake(Socket s) throws IOException {
        byte[] data = CmData.Connect.local(40000, 16384, 4096, 0x1234_0000_0000L).encode();
        s.getOutputStream().write(concat(connreq(data.length), data));
        s.getOutputStream().flush();
        s.setSoTimeout(20);
        byte[] resp = new byte[CmMessage.HEADER_SIZE + CmData.ACCEPT_SIZE];
        int got = 0;
        long end = System.nanoTime() + 10_000_000_000L;
        InputStream in = s.getInputStream();
        while (got < resp.length && System.nanoTime() < end) {
            victim.poll();
            try {
                int n = in.read(resp, got, resp.length - got);
                assertTrue(n >= 0, "victim closed a well-formed connect");
                got += n;
            } catch (SocketTimeoutException e) {
                // keep driving progress
            }
        }
        assertEquals(resp.length, got, "no connresp within 10 s");
        assertEquals(CmMessage.TYPE_CONNRESP, resp[1] & 0xFF, "victim refused a well-formed connect");
    }

    /** A tcp op_msg base header (host order, as the captures) announcing {@code size} bytes in all. */
    private static byte[] dataHeader(long size) {
        byte[] h = new byte[16];
        h[0] = 3;
        h[6] = 16;
        MemorySegment.ofArray(h).set(ValueLayout.JAVA_LONG_UNALIGNED, 8, size);
        return h;
    }

    private static byte[] connreq(int dataLength) {
        byte[] h = new byte[CmMessage.HEADER_SIZE];
        MemorySegment seg = MemorySegment.ofArray(h);
        assertEquals(CmMessage.HEADER_SIZE, CmMessage.encode(seg, CmMessage.TYPE_CONNREQ, null, 0));
        h[2] = (byte) (dataLength >>> 8);
        h[3] = (byte) dataLength;
        return h;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
