package io.jfabric.provider.tcp.interop;

import io.jfabric.AddressFormat;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
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
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.PassiveEndpoint;
import io.jfabric.provider.tcp.TcpProvider;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Plays libfabric 1.17 {@code fi_pingpong -e msg}'s role (util/pingpong.c) with the Java tcp provider, so the
 * provider can be checked against the real C program in either role: the out-of-band control socket
 * (port 47592 by default), name exchange (u32 length in network order, u32 addr_format, sockaddr), "q"/"a"
 * sync, ping-pong iterations with inject below inject_size, the message-count check and the "fin" exchange
 * with FI_TRANSMIT_COMPLETE. Options: {@code [-B port] [-P port] [-S size|all] [-I iters] [-c] [-6] [server-address]}.
 * Exits 0 when every size passed.
 */
public final class FiPingpongPeer {
    private static final String ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    private static final int INTEG_SEED = 7;
    private static final int MAX_DATA_MSG = (1 << 22) + (1 << 21);
    private static final int INJECT_SIZE = 128;

    private int ctrlPort = 47592;
    private String server;
    private int size = -1;
    private boolean all;
    private int iterations = 10;
    private boolean verify;
    private boolean ipv6;

    private AddressFormat remoteFormat;
    private Socket ctrl;
    private DataInputStream ctrlIn;
    private OutputStream ctrlOut;
    private Fabric fabric;
    private EventQueue eq;
    private Domain domain;
    private CompletionQueue txcq;
    private CompletionQueue rxcq;
    private Endpoint ep;
    private PassiveEndpoint pep;
    private MemorySegment txBuf;
    private MemorySegment rxBuf;
    private int fillIter;
    private int checkIter;
    private long txSeq;
    private long rxSeq;
    private long txCnt;
    private long rxCnt;
    private long cntAck;
    private final CqEntry[] comp = CqEntry.array(16);
    private final List<String> results = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        FiPingpongPeer p = new FiPingpongPeer();
        p.parse(args);
        int rc = p.run();
        System.exit(rc);
    }

    void parse(String[] args) {
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-B", "-P" -> ctrlPort = Integer.parseInt(args[++i]);
                case "-S" -> {
                    String v = args[++i];
                    if (v.equals("all")) {
                        all = true;
                    } else {
                        size = Integer.parseInt(v);
                    }
                }
                case "-I" -> iterations = Integer.parseInt(args[++i]);
                case "-c" -> verify = true;
                case "-6" -> ipv6 = true;
                case "-p", "-e" -> i++; // always tcp, msg
                default -> server = args[i];
            }
        }
    }

    List<String> results() {
        return results;
    }

    int run() throws Exception {
        Arena arena = Arena.ofShared();
        int bufSize = size >= 0 ? Math.max(size, 64) : MAX_DATA_MSG;
        txBuf = arena.allocate(bufSize, 4096);
        rxBuf = arena.allocate(bufSize, 4096);
        try {
            ctrlInit();
            if (server == null) {
                serverConnect(bufSize);
            } else {
                clientConnect(bufSize);
            }
            for (int s : sizes(bufSize)) {
                pingpong(s);
            }
            finish();
            return 0;
        } finally {
            cleanup();
            arena.close();
        }
    }

    private List<Integer> sizes(int txSize) {
        List<Integer> out = new ArrayList<>();
        if (size >= 0) {
            out.add(size);
        } else if (!all) {
            for (int s : new int[] {64, 256, 1024, 4096, 65536, 1048576}) {
                if (s <= txSize) {
                    out.add(s);
                }
            }
        } else {
            for (int i = 0; ; i++) {
                int p2 = i == 0 ? 0 : 1 << i;
                int half = i == 0 ? 1 : p2 + p2 / 2;
                if (p2 > txSize) {
                    break;
                }
                out.add(p2);
                if (half > txSize) {
                    break;
                }
                out.add(half);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ control socket

    private void ctrlInit() throws IOException {
        if (server == null) {
            try (ServerSocket ss = new ServerSocket()) {
                ss.setReuseAddress(true);
                ss.bind(new InetSocketAddress(InetAddress.getByName(ipv6 ? "::1" : "127.0.0.1"), ctrlPort));
                ctrl = ss.accept();
            }
        } else {
            ctrl = new Socket(server, ctrlPort);
        }
        ctrl.setSoTimeout(60_000);
        ctrlIn = new DataInputStream(ctrl.getInputStream());
        ctrlOut = ctrl.getOutputStream();
    }

    private void ctrlSend(byte[] b) throws IOException {
        ctrlOut.write(b);
        ctrlOut.flush();
    }

    private byte[] ctrlRecv(int n) throws IOException {
        byte[] b = new byte[n];
        ctrlIn.readFully(b);
        return b;
    }

    private void sendName(byte[] name, AddressFormat fmt) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8 + name.length);
        b.order(ByteOrder.BIG_ENDIAN).putInt(name.length);
        b.order(ByteOrder.nativeOrder()).putInt(fmt.value());
        b.put(name);
        ctrlSend(b.array());
    }

    private byte[] recvName() throws IOException {
        int len = ByteBuffer.wrap(ctrlRecv(4)).order(ByteOrder.BIG_ENDIAN).getInt();
        // fi_pingpong copies the peer's addr_format into its hints, and so do we
        remoteFormat = AddressFormat.of(ByteBuffer.wrap(ctrlRecv(4)).order(ByteOrder.nativeOrder()).getInt());
        return ctrlRecv(len);
    }

    // ------------------------------------------------------------------ setup

    private FabricInfo info(String node, long flags, byte[] dest) {
        FabricInfo hints = FabricInfo.hints();
        hints.fabricAttr.provName = "tcp";
        hints.epAttr.type = io.jfabric.EndpointType.MSG;
        hints.caps = io.jfabric.Caps.MSG;
        hints.addrFormat = remoteFormat != null ? remoteFormat
                : ipv6 ? AddressFormat.SOCKADDR_IN6 : AddressFormat.SOCKADDR_IN;
        hints.destAddr = dest;
        List<FabricInfo> infos = new TcpProvider().getInfo(Fabrics.API_VERSION, node, null, flags, hints);
        if (infos.isEmpty()) {
            throw new IllegalStateException("tcp offered no info");
        }
        return infos.get(0);
    }

    private void openActive(FabricInfo fi) {
        if (domain == null) {
            domain = fabric.openDomain(fi);
        }
        txcq = domain.openCq(CqAttr.of(CqFormat.CONTEXT, 256));
        rxcq = domain.openCq(CqAttr.of(CqFormat.CONTEXT, 256));
        ep = domain.openEndpoint(fi);
        ep.bind(eq);
        ep.bind(txcq, BindFlags.TRANSMIT);
        ep.bind(rxcq, BindFlags.RECV);
        ep.enable();
        postRx();
    }

    private void serverConnect(int bufSize) throws IOException {
        FabricInfo fi = info(ipv6 ? "::1" : "127.0.0.1", Fabrics.SOURCE, null);
        fabric = new TcpProvider().openFabric(fi);
        eq = fabric.openEq(new EqAttr());
        pep = fabric.openPassiveEndpoint(fi);
        pep.bind(eq);
        pep.listen();
        sendName(pep.getName(), fi.addrFormat);
        EqEntry e = waitEq(EqEvent.CONNREQ);
        domain = fabric.openDomain(e.info);
        openActive(e.info);
        ep.accept(null);
        waitEq(EqEvent.CONNECTED);
    }

    private void clientConnect(int bufSize) throws IOException {
        byte[] rem = recvName();
        FabricInfo fi = info(null, 0, rem);
        fabric = new TcpProvider().openFabric(fi);
        eq = fabric.openEq(new EqAttr());
        openActive(fi);
        ep.connect(rem, null);
        waitEq(EqEvent.CONNECTED);
    }

    private EqEntry waitEq(int event) {
        EqEntry e = new EqEntry();
        while (true) {
            int n = eq.sread(e, 60_000, 0);
            if (n == event) {
                return e;
            }
            if (n == -Errno.EAVAIL) {
                EqErrEntry err = new EqErrEntry();
                eq.readError(err, 0);
                throw new IllegalStateException("EQ error while waiting for " + EqEvent.toString(event) + ": " + err);
            }
            if (n != -Errno.EAGAIN) {
                throw new IllegalStateException("unexpected EQ event " + n + " while waiting for "
                        + EqEvent.toString(event));
            }
        }
    }

    // ------------------------------------------------------------------ data

    private void postRx() {
        int rc;
        while ((rc = ep.recv(rxBuf, null, 0, "rx")) == -Errno.EAGAIN) {
            drain(rxcq, false);
        }
        check(rc, "fi_recv");
        cntAck++;
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " returned " + rc + " (" + Errno.strerror(-rc) + ")");
        }
    }

    /** Reads completions until the counter reaches {@code target}. */
    private void waitComp(CompletionQueue cq, boolean tx, long target) {
        while ((tx ? txCnt : rxCnt) < target) {
            drain(cq, tx);
        }
    }

    private void drain(CompletionQueue cq, boolean tx) {
        int n = cq.read(comp, comp.length);
        if (n > 0) {
            if (tx) {
                txCnt += n;
            } else {
                rxCnt += n;
            }
        } else if (n == -Errno.EAVAIL) {
            CqErrEntry err = new CqErrEntry();
            cq.readError(err, 0);
            throw new IllegalStateException("completion error: " + err);
        } else if (n != -Errno.EAGAIN) {
            throw new IllegalStateException("cq read returned " + n);
        }
    }

    private void fill(int n) {
        int idx = (fillIter++ * INTEG_SEED) % ALPHABET.length();
        for (int i = 0; i < n; i++) {
            txBuf.set(ValueLayout.JAVA_BYTE, i, (byte) ALPHABET.charAt(idx++));
            if (idx >= ALPHABET.length()) {
                idx = 0;
            }
        }
    }

    private void verifyRx(int n) {
        int idx = (checkIter++ * INTEG_SEED) % ALPHABET.length();
        for (int i = 0; i < n; i++) {
            byte c = (byte) ALPHABET.charAt(idx++);
            if (idx >= ALPHABET.length()) {
                idx = 0;
            }
            if (rxBuf.get(ValueLayout.JAVA_BYTE, i) != c) {
                throw new IllegalStateException("data check failed at iteration " + checkIter + " size " + n
                        + " byte " + i);
            }
        }
    }

    private void tx(int n) {
        if (verify) {
            fill(n);
        }
        MemorySegment b = txBuf.asSlice(0, n);
        if (n < INJECT_SIZE) {
            int rc;
            while ((rc = ep.inject(b, 0)) == -Errno.EAGAIN) {
                drain(txcq, true);
            }
            check(rc, "fi_inject");
            txSeq++;
            txCnt++;
        } else {
            int rc;
            while ((rc = ep.send(b, null, 0, "tx")) == -Errno.EAGAIN) {
                drain(txcq, true);
            }
            check(rc, "fi_send");
            txSeq++;
            waitComp(txcq, true, txSeq);
        }
    }

    private void rx(int n) {
        waitComp(rxcq, false, rxSeq + 1);
        rxSeq++;
        if (verify) {
            verifyRx(n);
        }
        postRx();
    }

    private void pingpong(int n) throws IOException {
        cntAck = 0;
        if (server != null) {
            ctrlSend(new byte[] {'q', 0});
            byte[] a = ctrlRecv(2);
            if (a[0] != 'a') {
                throw new IllegalStateException("bad sync answer");
            }
        } else {
            byte[] q = ctrlRecv(2);
            if (q[0] != 'q') {
                throw new IllegalStateException("bad sync question");
            }
            ctrlSend(new byte[] {'a', 0});
        }
        long start = System.nanoTime();
        for (int i = 0; i < iterations; i++) {
            if (server != null) {
                tx(n);
                rx(n);
            } else {
                rx(n);
                tx(n);
            }
        }
        long elapsed = System.nanoTime() - start;
        if (server != null) {
            byte[] cnt = new byte[10];
            byte[] s = Long.toString(cntAck).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(s, 0, cnt, 0, Math.min(s.length, 10));
            ctrlSend(cnt);
            byte[] ok = ctrlRecv(7);
            if (!new String(ok, 0, 6, StandardCharsets.US_ASCII).equals("cnt ok")) {
                throw new IllegalStateException("count not acknowledged");
            }
        } else {
            ctrlRecv(10);
            ctrlSend("cnt ok\0".getBytes(StandardCharsets.US_ASCII));
        }
        double usec = elapsed / 1000.0 / iterations / 2;
        String line = String.format("%-8d%-8d%10.2f us/xfer %10.2f MB/sec", n, iterations, usec,
                (double) n * iterations * 2 / (elapsed / 1000.0));
        results.add(line);
        System.out.println(line);
    }

    private void finish() {
        MemorySegment fin = txBuf.asSlice(0, 4);
        fin.setString(0, "fin");
        Msg m = new Msg().set(fin, null, 0, "fin");
        check(ep.sendmsg(m, OpFlags.TRANSMIT_COMPLETE), "fi_sendmsg(fin)");
        txSeq++;
        waitComp(txcq, true, txSeq);
        waitComp(rxcq, false, rxSeq + 1);
        if (!rxBuf.getString(0).equals("fin")) {
            throw new IllegalStateException("final message was not 'fin'");
        }
    }

    private void cleanup() {
        try {
            if (ctrl != null) {
                ctrl.close();
            }
        } catch (IOException ignored) {
            // exiting
        }
        if (ep != null) {
            ep.shutdown(0);
        }
        for (AutoCloseable c : new AutoCloseable[] {ep, pep, txcq, rxcq, eq, domain, fabric}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                System.err.println("close: " + e.getMessage());
            }
        }
    }
}
