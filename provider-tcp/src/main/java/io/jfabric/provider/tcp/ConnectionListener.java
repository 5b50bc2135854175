package io.jfabric.provider.tcp;

/**
 * What a {@link TcpConnection} reports to its endpoint: completions (success or error) of posted operations,
 * target-side RMA events, and the end of the connection. Called with the endpoint's lock held.
 */
interface ConnectionListener {
    /** A send, write or read finished (after the ACK when one was asked for). */
    void txDone(TxEntry e);

    /** A transmit operation failed or was flushed. */
    void txFailed(TxEntry e, int errno);

    /** A message landed in a posted receive ({@code truncated} bytes were cut off and discarded). */
    void rxDone(RxEntry e, long len, long truncated, boolean hasData, long data);

    /** A posted receive failed or was flushed. */
    void rxFailed(RxEntry e, int errno);

    /**
     * Promises the receive CQ slot that a remote write's CQ data will fill; false while that CQ is full (the
     * frame then waits, and TCP pushes back on the writer, instead of the CQ overrunning).
     */
    boolean reserveRemoteData();

    /** Returns a promise of {@link #reserveRemoteData()} that will not be filled (the connection ended). */
    void cancelRemoteData();

    /** A remote write landed here; its CQ data, when {@code hasData}, fills the slot promised beforehand. */
    void remoteWrite(long len, boolean hasData, long data);

    /** A remote read was served from here. */
    void remoteRead(long len);

    /** The connection is gone; {@code errno} is 0 for an orderly close by the peer. */
    void connectionEnded(int errno, String reason);
}
