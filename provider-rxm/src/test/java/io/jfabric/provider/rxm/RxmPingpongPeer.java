package io.jfabric.provider.rxm;

import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.AddressVector;
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
import io.jfabric.OpFlags;
import io.jfabric.TaggedMsg;
import io.jfabric.Msg;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Plays libfabric's {@code fi_pingpong -e rdm} (util/pingpong.c, v1.17) over jfabric's tcp;ofi_rxm, so the
 * interop tests can run the real C fi_pingpong against it in either role: the same out-of-band control
 * socket (name exchange, "q"/"a" sync, message-count check), the same message sizes, tag 1234 in tagged
 * mode, the same data-integrity alphabet with {@code -c}, and the "fin" exchange at the end.
 *
 * <p>Usage: {@code server|client host port msg|tagged iterations verify(0|1) size...}
 */
public final class RxmPingpongPeer {
    private static final long TAG = 1234;
    private static final byte[] ALPHABET =
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_DATA = (1 << 22) + (1 << 21);

    private final boolean client;
    private final boolean tagged;
    private final int iterations;
    private final boolean verify;
    private int fillIter;
    private int checkIter;
    private Endpoint ep;
    private CompletionQueue cq;
    private long remote;
    private MemorySegment rxBuf;
    private MemorySegment txBuf;
    private long injectSize;
    private long cntAck;
    private final CqEntry entry = new CqEntry();
    private final CqErrEntry err = new CqErrEntry();
    private final Object rxCtx = "rx";
    private final Object txCtx = "tx";
    private boolean rxDone;
    private int txDone;

    RxmPingpongPeer(boolean client, boolean tagged, int iterations, boolean verify) {
        this.client = client;
        this.tagged = tagged;
        this.iterations = iterations;
        this.verify = verify;
    }

    public static void main(String[] args) throws Exception {
        boolean client = args[0].equals("client");
        String host = args[1];
        int port = Integer.parseInt(args[2]);
        boolean tagged = args[3].equals("tagged");
        int iterations = Integer.parseInt(args[4]);
        boolean verify = args[5].equals("1");
        int[] sizes = new int[args.length - 6];
        for (int i = 6; i < args.length; i++) {
            sizes[i - 6] = Integer.parseInt(args[i]);
        }
        int rc = new RxmPingpongPeer(client, tagged, iterations, verify).run(host, port, sizes);
        System.out.println(rc == 0 ? "PINGPONG OK" : "PINGPONG FAILED " + rc);
        System.exit(rc == 0 ? 0 : 1);
    }

    int run(String host, int port, int[] sizes) throws IOException {
        Socket ctrl;
        if (client) {
            ctrl = new Socket();
            ctrl.connect(new InetSocketAddress(host, port), 10_000);
        } else {
            try (ServerSocket ss = new ServerSocket()) {
                ss.setReuseAddress(true);
                ss.bind(new InetSocketAddress(port));
                ctrl = ss.accept();
            }
        }
        ctrl.setSoTimeout(30_000);
        ctrl.setTcpNoDelay(true);
        InputStream in = ctrl.getInputStream();
        OutputStream out = ctrl.getOutputStream();
        DataInputStream din = new DataInputStream(in);

        FabricInfo hints = Hints.create().caps(tagged ? Caps.TAGGED : Caps.MSG).epType(EndpointType.RDM)
                .provider("tcp;ofi_rxm").build();
        byte[] remoteName = null;
        if (client) {
            remoteName = recvName(din);
        }
        FabricInfo info = Fabrics.getInfo(Fabrics.API_VERSION, "127.0.0.1", null, Fabrics.SOURCE, hints).getFirst();
        injectSize = info.txAttr.injectSize;
        try (Arena arena = Arena.ofShared();
             Fabric fabric = Fabrics.openFabric(info);
             Domain domain = fabric.openDomain(info);
             AddressVector av = domain.openAv(AvAttr.of(AvType.UNSPEC));
             CompletionQueue cq = domain.openCq(CqAttr.of(CqFormat.CONTEXT, 0));
             Endpoint ep = domain.openEndpoint(info)) {
            this.ep = ep;
            this.cq = cq;
            ep.bind(av);
            ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
            ep.enable();
            rxBuf = arena.allocate(MAX_DATA, 4096);
            txBuf = arena.allocate(MAX_DATA, 4096);
            postRx();
            sendName(out, ep.getName());
            if (!client) {
                remoteName = recvName(din);
            }
            remote = av.insert(remoteName);
            for (int size : sizes) {
                sync(din, out);
                for (int i = 0; i < iterations; i++) {
                    if (client) {
                        tx(size, true);
                        rx(size, true);
                    } else {
                        rx(size, true);
                        tx(size, true);
                    }
                }
                countCheck(din, out);
                System.out.println("size " + size + " x " + iterations + " ok");
            }
            // finalize: "fin" with FI_TRANSMIT_COMPLETE, then the peer's fin
            byte[] fin = {'f', 'i', 'n', 0};
            MemorySegment.copy(MemorySegment.ofArray(fin), 0, txBuf, 0, 4);
            int rc;
            if (tagged) {
                TaggedMsg m = new TaggedMsg();
                m.set(txBuf.asSlice(0, 4), null, remote, txCtx);
                m.tag = TAG;
                rc = retry(() -> ep.tsendmsg(m, OpFlags.TRANSMIT_COMPLETE));
            } else {
                Msg m = new Msg();
                m.set(txBuf.asSlice(0, 4), null, remote, txCtx);
                rc = retry(() -> ep.sendmsg(m, OpFlags.TRANSMIT_COMPLETE));
            }
            check(rc, "fin send");
            waitTx();
            waitRx();
            // optional (-Drxm.peer.lingerMillis): keep progressing a while before closing, as a diagnosis aid
            long lingerEnd = System.nanoTime() + Long.getLong("rxm.peer.lingerMillis", 0) * 1_000_000L;
            while (System.nanoTime() < lingerEnd) {
                poll();
            }
            ctrl.close();
            return 0;
        }
    }

    private interface Op {
        int post();
    }

    private int retry(Op op) {
        long end = System.nanoTime() + 30_000_000_000L;
        while (true) {
            int rc = op.post();
            if (rc != -Errno.EAGAIN || System.nanoTime() > end) {
                return rc;
            }
            poll();
        }
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " failed: " + Errno.name(-rc));
        }
    }

    private void poll() {
        int n = cq.read(entry);
        if (n == 1) {
            if (entry.context == rxCtx) {
                rxDone = true;
            } else if (entry.context == txCtx) {
                txDone++;
            }
        } else if (n == -Errno.EAVAIL) {
            cq.readError(err, 0);
            throw new IllegalStateException("completion error " + err);
        }
    }

    private void postRx() {
        rxDone = false;
        MemorySegment b = rxBuf;
        int rc = tagged ? retry(() -> ep.trecv(b, null, Fabrics.ADDR_UNSPEC, TAG, 0, rxCtx))
                : retry(() -> ep.recv(b, null, Fabrics.ADDR_UNSPEC, rxCtx));
        check(rc, "post rx");
    }

    private void waitRx() {
        long end = System.nanoTime() + 10_000_000_000L;
        while (!rxDone) {
            poll();
            if (System.nanoTime() > end) {
                throw new IllegalStateException("timed out waiting for a receive completion; " + ep);
            }
        }
    }

    private void waitTx() {
        long end = System.nanoTime() + 30_000_000_000L;
        while (txDone == 0) {
            poll();
            if (System.nanoTime() > end) {
                throw new IllegalStateException("timed out waiting for a send completion; " + ep);
            }
        }
        txDone--;
    }

    private void tx(int size, boolean active) {
        if (verify && active) {
            int idx = (int) (((long) (fillIter++) * 7) % ALPHABET.length);
            for (int i = 0; i < size; i++) {
                txBuf.set(ValueLayout.JAVA_BYTE, i, ALPHABET[idx++]);
                if (idx >= ALPHABET.length) {
                    idx = 0;
                }
            }
        }
        MemorySegment s = txBuf.asSlice(0, size);
        if (size < injectSize) {
            check(tagged ? retry(() -> ep.tinject(s, remote, TAG)) : retry(() -> ep.inject(s, remote)), "inject");
            return;
        }
        check(tagged ? retry(() -> ep.tsend(s, null, remote, TAG, txCtx)) : retry(() -> ep.send(s, null, remote, txCtx)),
                "send");
        waitTx();
    }

    private void rx(int size, boolean active) {
        waitRx();
        if (verify && active) {
            int idx = (int) (((long) (checkIter++) * 7) % ALPHABET.length);
            for (int i = 0; i < size; i++) {
                byte c = ALPHABET[idx++];
                if (idx >= ALPHABET.length) {
                    idx = 0;
                }
                if (rxBuf.get(ValueLayout.JAVA_BYTE, i) != c) {
                    throw new IllegalStateException("data mismatch at size " + size + " byte " + i);
                }
            }
        }
        postRx();
        cntAck++;
    }

    private void sync(DataInputStream in, OutputStream out) throws IOException {
        byte[] two = new byte[2];
        if (client) {
            out.write(new byte[] {'q', 0});
            in.readFully(two);
            if (two[0] != 'a') {
                throw new IOException("bad sync answer");
            }
        } else {
            in.readFully(two);
            if (two[0] != 'q') {
                throw new IOException("bad sync question");
            }
            out.write(new byte[] {'a', 0});
        }
    }

    private void countCheck(DataInputStream in, OutputStream out) throws IOException {
        if (client) {
            byte[] cnt = new byte[10];
            byte[] digits = Long.toString(cntAck).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(digits, 0, cnt, 0, Math.min(digits.length, 10));
            out.write(cnt);
            byte[] ok = new byte[7];
            in.readFully(ok);
        } else {
            byte[] cnt = new byte[10];
            in.readFully(cnt);
            out.write("cnt ok\0".getBytes(StandardCharsets.US_ASCII));
        }
        cntAck = 0;
    }

    private static void sendName(OutputStream out, byte[] name) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8 + name.length);
        b.order(ByteOrder.BIG_ENDIAN).putInt(name.length);
        b.order(ByteOrder.nativeOrder()).putInt(2 /* FI_SOCKADDR_IN */);
        b.put(name);
        out.write(b.array());
    }

    private static byte[] recvName(DataInputStream in) throws IOException {
        int len = in.readInt();
        byte[] fmt = new byte[4];
        in.readFully(fmt);
        byte[] name = new byte[len];
        in.readFully(name);
        return name;
    }
}
