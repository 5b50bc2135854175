package io.jfabric.provider.rxm;

/**
 * One on-demand connection from a local rxm endpoint to a {@link Peer}: libfabric's {@code struct rxm_conn}.
 * {@code E} is the core endpoint type (a jfabric {@link io.jfabric.Endpoint} in the provider, a stand-in
 * in state-machine tests). {@link #attachment} carries the data-path state the endpoint keeps per
 * connection (deferred transmits, SAR reassembly).
 *
 * @param <E> core endpoint type
 */
public final class RxmConnection<E> {
    final Peer peer;
    final boolean loopback;
    ConnState state = ConnState.IDLE;
    E ep;
    /** The peer's index for us: goes into ctrl_hdr.conn_id of every packet we send. */
    int remoteIndex = -1;
    /** The peer's pid from its conn id; 0 until known. */
    long remotePid;
    /** The peer's same-host announcement from its connect or accept data; null if it made none (libfabric). */
    io.jfabric.provider.rxm.wire.CmData.SameHost peerSameHost;
    /** Per-connection data-path state owned by the endpoint. */
    public Object attachment;

    RxmConnection(Peer peer, boolean loopback) {
        this.peer = peer;
        this.loopback = loopback;
    }

    public Peer peer() {
        return peer;
    }

    public ConnState state() {
        return state;
    }

    public E ep() {
        return ep;
    }

    public int remoteIndex() {
        return remoteIndex;
    }

    public long remotePid() {
        return remotePid;
    }

    public io.jfabric.provider.rxm.wire.CmData.SameHost peerSameHost() {
        return peerSameHost;
    }

    public boolean isLoopback() {
        return loopback;
    }

    public boolean isConnected() {
        return state == ConnState.CONNECTED;
    }

    @Override
    public String toString() {
        return "conn[" + peer + ", " + state + (loopback ? ", loopback" : "") + ", remote index " + remoteIndex
                + ", remote pid " + remotePid + "]";
    }
}
