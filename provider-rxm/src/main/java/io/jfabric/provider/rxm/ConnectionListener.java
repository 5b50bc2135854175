package io.jfabric.provider.rxm;

/**
 * What the endpoint hears from {@link ConnectionManager}: a connection came up (flush its deferred
 * sends), or went down / failed to come up (complete everything queued on it with {@code errno}).
 *
 * @param <E> core endpoint type
 */
public interface ConnectionListener<E> {
    void connected(RxmConnection<E> conn);

    /**
     * The connection's core endpoint is gone. {@code errno} is positive: ECONNREFUSED for a refused connect,
     * ECONNRESET for a peer that went away or restarted, ECONNABORTED for a handshake without rxm data.
     * The connection is IDLE again, so the next send reconnects.
     */
    void closed(RxmConnection<E> conn, int errno);
}
