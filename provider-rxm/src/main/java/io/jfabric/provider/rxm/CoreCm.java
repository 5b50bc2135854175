package io.jfabric.provider.rxm;

import io.jfabric.FabricInfo;

/**
 * The connection-management calls {@link ConnectionManager} makes on the core provider. The provider
 * implements them over jfabric's Endpoint/PassiveEndpoint; tests implement them over a stand-in.
 * Each may throw {@link io.jfabric.FabricException}.
 *
 * @param <E> core endpoint type
 */
public interface CoreCm<E> {
    /** Opens a core MSG endpoint for {@code conn}, binds and enables it, and calls fi_connect. */
    E connect(RxmConnection<E> conn, byte[] peerAddr, byte[] cmData);

    /** Opens a core MSG endpoint from the CONNREQ's info, binds and enables it, and calls fi_accept. */
    E accept(RxmConnection<E> conn, FabricInfo connreq, byte[] cmData);

    /** fi_reject on the passive endpoint. */
    void reject(FabricInfo connreq, byte[] cmData);

    /** Closes a core endpoint (its posted operations are flushed by the core). */
    void close(E ep);
}
