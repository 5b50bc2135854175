package io.jfabric.cli.pingpong;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * fi_pingpong's out-of-band control connection (libfabric util/pingpong.c, "Control Messaging"): a plain
 * TCP socket on port 47592 by default, over which the two sides exchange endpoint names, synchronise
 * before each size and compare message counts after it. The bytes on this socket are fi_pingpong's, so a
 * C fi_pingpong can sit at the other end:
 * <ul>
 * <li>name: a big-endian u32 length, the {@code fi_info.addr_format} enum as a host-order u32, the raw name;</li>
 * <li>sync: the client sends "q\0", the server answers "a\0";</li>
 * <li>count: the client sends its ack count in decimal, NUL-padded to 10 bytes, the server answers "cnt ok\0".</li>
 * </ul>
 * Reads wait at most {@link #RECV_TIMEOUT_MS} (fi_pingpong's SO_RCVTIMEO of 5 s) unless
 * {@link #readTimeout(long)} widens it: a JVM that is still compiling, or one side's long warm-up, can
 * outlast 5 s on a loaded machine. Public because
 * {@code jfabric bw} and {@code rma-bw} set up over the same channel.
 */
public final class ControlChannel implements Closeable {
    public static final int DEFAULT_PORT = 47592;
    static final int RECV_TIMEOUT_MS = 5_000;
    static final int MAX_ADDRLEN = 1024;
    private int readTimeoutMs;
    private static final byte[] SYNC_Q = {'q', 0};
    private static final byte[] SYNC_A = {'a', 0};
    private static final int LEN_CNT = 10;
    private static final byte[] CNT_OK = "cnt ok\0".getBytes(StandardCharsets.US_ASCII);

    private final Socket socket;
    private final ControlReader reader;
    private final DataInputStream in;
    private final OutputStream out;
    private final boolean client;

    private ControlChannel(Socket socket, boolean client) throws IOException {
        this.socket = socket;
        this.client = client;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(0); // the reader thread blocks; ControlReader applies the read timeout
        this.readTimeoutMs = RECV_TIMEOUT_MS;
        this.reader = new ControlReader(socket.getInputStream(), RECV_TIMEOUT_MS, "control-reader");
        this.in = new DataInputStream(reader);
        this.out = socket.getOutputStream();
    }

    /**
     * Server side: listens on {@code srcPort} (any address) and takes one connection. {@code acceptTimeoutMs}
     * bounds the wait for the client (0 waits forever, as fi_pingpong does).
     */
    public static ControlChannel serve(int srcPort, boolean ipv6, int acceptTimeoutMs) throws IOException {
        InetAddress any = InetAddress.getByName(ipv6 ? "::" : "0.0.0.0");
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(any, srcPort), 10);
            listener.setSoTimeout(acceptTimeoutMs);
            try {
                return new ControlChannel(listener.accept(), false);
            } catch (SocketTimeoutException e) {
                throw new IOException("no pingpong client connected to control port " + srcPort + " within "
                        + acceptTimeoutMs + " ms", e);
            }
        }
    }

    /** Client side: connects to {@code host:dstPort}, from {@code srcPort} when it is not 0. */
    public static ControlChannel connect(String host, int dstPort, int srcPort, boolean ipv6) throws IOException {
        IOException last = null;
        for (InetAddress a : InetAddress.getAllByName(host)) {
            if (ipv6 ? !(a instanceof Inet6Address) : !(a instanceof Inet4Address)) {
                continue;
            }
            Socket s = new Socket();
            try {
                if (srcPort != 0) {
                    s.setReuseAddress(true);
                    s.bind(new InetSocketAddress(InetAddress.getByName(ipv6 ? "::" : "0.0.0.0"), srcPort));
                }
                s.connect(new InetSocketAddress(a, dstPort), RECV_TIMEOUT_MS);
                return new ControlChannel(s, true);
            } catch (IOException e) {
                s.close();
                last = e;
            }
        }
        throw new IOException("failed to connect to the pingpong server's control port " + host + ":" + dstPort
                + (last == null ? ": no " + (ipv6 ? "IPv6" : "IPv4") + " address" : ": " + last.getMessage()), last);
    }

    public boolean isClient() {
        return client;
    }

    /** pp_send_name. */
    public void sendName(byte[] name, int addrFormat) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8 + name.length);
        b.order(ByteOrder.BIG_ENDIAN).putInt(name.length);
        b.order(ByteOrder.nativeOrder()).putInt(addrFormat);
        b.put(name);
        send(b.array());
    }

    /** pp_recv_name: the peer's address format and name. */
    public Name recvName() throws IOException {
        byte[] len = readExactly(4, "name length");
        int n = ByteBuffer.wrap(len).order(ByteOrder.BIG_ENDIAN).getInt();
        if (n < 0 || n > MAX_ADDRLEN) {
            throw new IOException("peer announced a name of " + n + " bytes; at most " + MAX_ADDRLEN + " are allowed");
        }
        int format = ByteBuffer.wrap(readExactly(4, "address format")).order(ByteOrder.nativeOrder()).getInt();
        return new Name(format, readExactly(n, "name"));
    }

    /** A peer's endpoint name and its fi_addr_format value. */
    public record Name(int addrFormat, byte[] bytes) {
    }

    /** pp_ctrl_sync. */
    public void sync() throws IOException {
        if (client) {
            send(SYNC_Q);
            expect(SYNC_A, "sync answer");
        } else {
            expect(SYNC_Q, "sync question");
            send(SYNC_A);
        }
    }

    /** Longest wait of each later read, in ms; 0 waits forever, as fi_pingpong's {@code --timeout 0}. */
    public void readTimeout(long ms) throws IOException {
        readTimeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(0, ms));
        reader.timeout(readTimeoutMs);
    }

    /**
     * pp_ctrl_txrx_msg_count: the client tells the server how many messages it received; returns the
     * count the server will print (the client's) on both sides.
     */
    public long exchangeCount(long myCount) throws IOException {
        if (client) {
            byte[] msg = new byte[LEN_CNT];
            byte[] digits = Long.toString(myCount).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(digits, 0, msg, 0, Math.min(digits.length, LEN_CNT));
            send(msg);
            expect(CNT_OK, "count acknowledgement");
            return myCount;
        }
        byte[] msg = readExactly(LEN_CNT, "message count");
        int end = 0;
        while (end < msg.length && msg[end] != 0) {
            end++;
        }
        long count;
        try {
            count = Long.parseLong(new String(msg, 0, end, StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            throw new IOException("peer sent a malformed message count " + Arrays.toString(msg), e);
        }
        send(CNT_OK);
        return count;
    }

    private void send(byte[] b) throws IOException {
        try {
            out.write(b);
            out.flush();
        } catch (IOException e) {
            throw new IOException("the peer " + peer() + " closed the control connection (" + e.getMessage()
                    + "); it has exited", e);
        }
    }

    private void expect(byte[] want, String what) throws IOException {
        byte[] got = readExactly(want.length, what);
        if (!Arrays.equals(want, got)) {
            throw new IOException("control protocol: expected " + printable(want) + " as " + what + ", got "
                    + printable(got));
        }
    }

    private byte[] readExactly(int n, String what) throws IOException {
        byte[] b = new byte[n];
        try {
            in.readFully(b);
        } catch (EOFException e) {
            throw new IOException("the peer " + peer() + " closed the control connection while we read the " + what
                    + "; it has exited", e);
        } catch (SocketTimeoutException e) {
            throw new IOException("no " + what + " from the peer within " + readTimeoutMs + " ms", e);
        } catch (IOException e) {
            throw new IOException("the control connection to the peer " + peer() + " failed while we read the "
                    + what + " (" + e.getMessage() + "); it has probably exited", e);
        }
        return b;
    }

    private static String printable(byte[] b) {
        StringBuilder sb = new StringBuilder("\"");
        for (byte x : b) {
            sb.append(x >= 32 && x < 127 ? String.valueOf((char) x) : String.format("\\x%02x", x & 0xff));
        }
        return sb.append('"').toString();
    }

    /** Whether the peer closed the control connection (a killed process's sockets close at once). Never blocks. */
    public boolean peerClosed() {
        return reader.closed();
    }

    /**
     * Until the returned guard is closed, a peer that closes the control connection must be noticed by the
     * benchmark within {@link ControlReader#STUCK_GRACE_MS}; if it is not, the benchmark's thread is inside a
     * fabric call that does not return (libfabric 1.17's shm spins in fi_cq_read on a lock its killed peer held),
     * so the control reader prints {@code gone} on stderr and halts the process with FI_ECONNRESET's number.
     */
    public Closeable exitIfStuckAfterPeerCloses(String gone) {
        reader.guard(gone);
        return () -> reader.guard(null);
    }

    /** The peer's end of the control connection, host:port, for messages. */
    public String peer() {
        return String.valueOf(socket.getRemoteSocketAddress()).replaceFirst("^/", "");
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
