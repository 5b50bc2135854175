package io.jfabric.provider.tcp;

import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * The idle connections of a CQ that drives many, watched by one epoll set. A connection read directly on every
 * progress call costs one system call per connection per call, which is the fastest way to notice data on a busy
 * connection and makes an rxm endpoint with hundreds of mostly idle peers spend most of each call reading empty
 * sockets; libfabric's tcp asks one epoll set per call instead. Here a connection whose reads keep finding nothing
 * joins this set ({@link TcpConnection}'s quiet mode) and is read only once the set's poll, one system call for
 * all of them, says data came; busy connections are still read directly.
 */
final class QuietSet implements AutoCloseable {
    /** A CQ driving fewer connections than this reads each of them directly, as before. */
    static final int MIN_CONNECTIONS = 8;

    private final Selector selector;
    private final Consumer<SelectionKey> onReady = k -> ((TcpConnection) k.attachment()).wake();

    private QuietSet(Selector selector) {
        this.selector = selector;
    }

    /** A set, or null when no selector can be opened (out of descriptors): connections are then read directly. */
    static QuietSet open() {
        try {
            return new QuietSet(Selector.open());
        } catch (IOException e) {
            return null;
        }
    }

    /** Marks the connections with something to read (data, end of stream, an error). */
    void poll() {
        try {
            selector.selectNow(onReady);
        } catch (IOException | ClosedSelectorException e) {
            // a closed set: its connections are read on their periodic re-checks
        }
    }

    /** Starts watching {@code ch} for reads; the key turns watching off again ({@code interestOps(0)}). */
    SelectionKey watch(SocketChannel ch, TcpConnection c) throws IOException {
        return ch.register(selector, SelectionKey.OP_READ, c);
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing registered outlives the CQ
        }
    }
}
