package io.jfabric.cli.pingpong;

import io.jfabric.Errno;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;

/**
 * The control connection's input, read by a daemon thread into a small buffer, so that the benchmark loop
 * can ask, without blocking and without taking bytes meant for a later sync, whether the peer closed the
 * connection: the kernel closes a killed process's sockets at once, so this notices a dead peer even where
 * the fabric says nothing (libfabric's own providers, an idle RDM receive). Reads wait at most the timeout
 * {@link #timeout} sets, and then throw {@link SocketTimeoutException} as the socket itself would.
 */
final class ControlReader extends InputStream {
    /** How long a guarded benchmark has to notice its peer's close before the process is halted. */
    static final long STUCK_GRACE_MS = 2_000;
    private final InputStream socketIn;
    private volatile String guardMessage;
    private int timeoutMs;
    /** The socket said end of stream, or failed ({@code failure}). */
    private volatile boolean eof;
    private IOException failure;
    /** Bytes read from the socket and not yet taken: a ring of {@code count} bytes from {@code head}. */
    private final byte[] buf = new byte[4096];
    private int head;
    private int count;

    ControlReader(InputStream socketIn, int timeoutMs, String name) {
        this.timeoutMs = timeoutMs;
        this.socketIn = socketIn;
        Thread.ofPlatform().daemon().name(name).start(this::pump);
    }

    private void pump() {
        byte[] chunk = new byte[1024];
        try {
            while (true) {
                int n = socketIn.read(chunk);
                synchronized (this) {
                    if (n < 0) {
                        eof = true;
                        notifyAll();
                        break;
                    }
                    while (count + n > buf.length) {
                        wait(); // the control protocol's messages are small: a reader frees room soon
                    }
                    for (int i = 0; i < n; i++) {
                        buf[(head + count + i) % buf.length] = chunk[i];
                    }
                    count += n;
                    notifyAll();
                }
            }
        } catch (IOException e) {
            synchronized (this) {
                failure = e;
                eof = true;
                notifyAll();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        haltIfStuck();
    }

    /** The message a stuck benchmark exits with, while a guard is set; null otherwise. */
    void guard(String gone) {
        guardMessage = gone;
    }

    /** After the peer closed: a benchmark still guarded after the grace is stuck in a call that won't return. */
    private void haltIfStuck() {
        long until = System.nanoTime() + STUCK_GRACE_MS * 1_000_000L;
        while (guardMessage != null && System.nanoTime() - until < 0) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
        String gone = guardMessage;
        if (gone != null) {
            System.out.flush();
            System.err.println(gone + "; the fabric call in progress has not returned " + STUCK_GRACE_MS
                    + " ms later, so the process exits");
            System.err.flush();
            // halt, not exit: shutdown hooks would close the fabric, and that can wait on the same dead peer
            Runtime.getRuntime().halt(Errno.ECONNRESET);
        }
    }

    synchronized void timeout(int ms) {
        timeoutMs = ms;
    }

    /** True once the peer closed (or reset) the connection and every byte it sent before was read. */
    synchronized boolean closed() {
        return eof && count == 0;
    }

    @Override
    public synchronized int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        long deadline = timeoutMs <= 0 ? Long.MAX_VALUE : System.currentTimeMillis() + timeoutMs;
        while (count == 0 && !eof) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                throw new SocketTimeoutException("no control data within " + timeoutMs + " ms");
            }
            try {
                wait(Math.min(left, 1_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while reading the control connection", e);
            }
        }
        if (count == 0) {
            if (failure != null) {
                throw failure;
            }
            return -1;
        }
        int n = Math.min(len, count);
        for (int i = 0; i < n; i++) {
            b[off + i] = buf[(head + i) % buf.length];
        }
        head = (head + n) % buf.length;
        count -= n;
        notifyAll();
        return n;
    }
}
