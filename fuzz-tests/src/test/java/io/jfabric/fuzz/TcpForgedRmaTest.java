package io.jfabric.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Access;
import io.jfabric.AddressFormat;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.PassiveEndpoint;
import io.jfabric.Progress;
import io.jfabric.provider.tcp.wire.CmMessage;
import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.provider.tcp.wire.WireOrder;
import io.jfabric.util.Sockaddr;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RMA frames forged on the wire against a real tcp endpoint: a raw socket completes the CM handshake and
 * then sends writes and read requests with a wrong key, an address outside the region, a length that
 * straddles its end, and an address that wraps. The provider must refuse each one by closing that
 * connection with an EQ error and SHUTDOWN (its documented behaviour), and the registered memory must keep
 * every byte.
 */
@Timeout(30)
class TcpForgedRmaTest {
    private static final int SIZE = 4096;
    private static final byte FILL = 0x5A;

    private final Arena arena = Arena.ofShared();
    private Fabric fabric;
    private Domain domain;
    private EventQueue eq;
    private CompletionQueue cq;
    private PassiveEndpoint pep;
    private Endpoint ep;
    private MemorySegment mem;
    private MemoryRegion mr;
    private FabricInfo info;

    @BeforeEach
    void listen() {
        FabricInfo hints = FabricInfo.hints();
        hints.fabricAttr.provName = "tcp";
        hints.addrFormat = AddressFormat.SOCKADDR_IN;
        hints.domainAttr.dataProgress = Progress.AUTO;
        hints.domainAttr.controlProgress = Progress.AUTO;
        info = Fabrics.getInfo(Fabrics.API_VERSION, "127.0.0.1", "0", Fabrics.SOURCE, hints).getFirst();
        fabric = Fabrics.openFabric(info);
        domain = fabric.openDomain(info);
        eq = fabric.openEq(new EqAttr());
        cq = domain.openCq(CqAttr.of(CqFormat.DATA, 64));
        pep = fabric.openPassiveEndpoint(info);
        pep.bind(eq);
        pep.listen();
        mem = arena.allocate(SIZE, 64);
        mem.fill(FILL);
        mr = domain.registerMemory(mem, Access.REMOTE_WRITE | Access.REMOTE_READ, 0);
    }

    @AfterEach
    void close() {
        if (ep != null) {
            ep.close();
        }
        mr.close();
        pep.close();
        cq.close();
        eq.close();
        domain.close();
        fabric.close();
        arena.close();
    }

    /** Remote address of region offset 0: its virtual address under FI_MR_VIRT_ADDR, else 0 (tcp's default). */
    private long base() {
        return (info.domainAttr.mrMode & io.jfabric.MrMode.VIRT_ADDR) != 0 ? mem.address() : 0;
    }

    @Test
    void writeWithAForgedKey() throws Exception {
        forgedWrite(base(), 64, mr.key() ^ 0x1_0000L);
    }

    @Test
    void writeOutsideTheRegion() throws Exception {
        forgedWrite(base() + SIZE, 64, mr.key());
    }

    @Test
    void writeStraddlingTheEnd() throws Exception {
        forgedWrite(base() + SIZE - 8, 64, mr.key());
    }

    @Test
    void writeAtAWrappingAddress() throws Exception {
        forgedWrite(-16L, 64, mr.key());
    }

    @Test
    void readRequestWithAForgedKey() throws Exception {
        byte[] frame = rma(DataHeader.OP_READ_REQ, base(), 64, mr.key() + 7, 0);
        attack(frame);
    }

    private void forgedWrite(long addr, int len, long key) throws Exception {
        byte[] payload = new byte[len];
        Arrays.fill(payload, (byte) 0x33);
        byte[] h = rma(DataHeader.OP_WRITE, addr, len, key, len);
        byte[] frame = Arrays.copyOf(h, h.length + len);
        System.arraycopy(payload, 0, frame, h.length, len);
        attack(frame);
    }

    private static byte[] rma(int op, long addr, long len, long key, long payload) {
        MemorySegment h = MemorySegment.ofArray(new byte[DataHeader.MAX_HDR_SIZE]);
        int hdr = DataHeader.encodeRma(h, WireOrder.HOST, op, 0, 0, 1, payload);
        assertTrue(hdr > 0);
        DataHeader.putRmaIov(h, WireOrder.HOST, 0, addr, len, key);
        return h.asSlice(0, hdr).toArray(ValueLayout.JAVA_BYTE);
    }

    private void attack(byte[] frame) throws Exception {
        try (Socket s = new Socket("127.0.0.1", Sockaddr.port(pep.getName()))) {
            byte[] req = new byte[CmMessage.HEADER_SIZE];
            CmMessage.encode(MemorySegment.ofArray(req), CmMessage.TYPE_CONNREQ, null, 0);
            s.getOutputStream().write(req);
            EqEntry e = new EqEntry();
            assertTrue(eq.sread(e, 10_000, 0) > 0, "no CONNREQ"); // sread returns the event number
            assertEquals(EqEvent.CONNREQ, e.event);
            ep = domain.openEndpoint(e.info);
            ep.bind(eq);
            ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
            ep.accept(null);
            s.setSoTimeout(10_000);
            byte[] resp = s.getInputStream().readNBytes(CmMessage.HEADER_SIZE);
            assertEquals(0, CmMessage.decodeHeader(MemorySegment.ofArray(resp), CmMessage.TYPE_CONNRESP));
            assertTrue(eq.sread(e, 10_000, 0) > 0, "no CONNECTED");
            assertEquals(EqEvent.CONNECTED, e.event);

            s.getOutputStream().write(frame);
            s.getOutputStream().flush();
            // the provider reports the refusal on the EQ (an error entry, then SHUTDOWN) and closes the socket
            boolean sawError = false;
            boolean sawShutdown = false;
            long end = System.nanoTime() + 10_000_000_000L;
            while (!sawShutdown && System.nanoTime() < end) {
                int rc = eq.sread(e, 200, 0);
                if (rc == -Errno.EAVAIL) {
                    EqErrEntry err = new EqErrEntry();
                    assertEquals(1, eq.readError(err, 0));
                    assertTrue(err.err > 0, "EQ error without errno");
                    sawError = true;
                } else if (rc > 0 && e.event == EqEvent.SHUTDOWN) {
                    sawShutdown = true;
                }
            }
            assertTrue(sawError, "no EQ error for a forged RMA frame");
            assertTrue(sawShutdown, "no SHUTDOWN after a forged RMA frame");
            assertTrue(closedByPeer(s), "the socket of the forged RMA stayed open");
        }
        for (long i = 0; i < SIZE; i++) {
            assertEquals(FILL, mem.get(ValueLayout.JAVA_BYTE, i), "registered byte " + i + " was written");
        }
    }

    private static boolean closedByPeer(Socket s) throws IOException {
        s.setSoTimeout(5_000);
        InputStream in = s.getInputStream();
        try {
            while (true) {
                int n = in.read(new byte[4096]);
                if (n < 0) {
                    return true; // a read request must never be answered with data: drained bytes are CM only
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }
}
