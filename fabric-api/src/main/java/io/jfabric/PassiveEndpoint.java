package io.jfabric;

/** Mirrors {@code struct fid_pep} ({@code fi_passive_ep}): listens for FI_EP_MSG connection requests. */
public interface PassiveEndpoint extends FabricObject {
    /**
     * {@code fi_pep_bind} to an EQ, which receives FI_CONNREQ events.
     *
     * @param eq the queue
     */
    void bind(EventQueue eq);

    /**
     * {@code fi_listen}.
     *
     * @throws FabricException ENOEQ without a bound EQ, EADDRINUSE when the address is taken
     */
    void listen();

    /**
     * {@code fi_reject}: refuses a connection request; the peer sees ECONNREFUSED with the data.
     *
     * @param handle the {@code handle} of the CONNREQ's info ({@link FabricInfo#handle})
     * @param data reject data for the peer (up to {@link #cmDataSize()} bytes), or null
     */
    void reject(Object handle, byte[] data);

    /**
     * {@code fi_getname}.
     *
     * @return the bound address, with the real port once listening
     */
    byte[] getName();

    /**
     * {@code fi_setname}: the address to listen on, before {@link #listen()}.
     *
     * @param addr the address, in the info's addr_format
     */
    void setName(byte[] addr);

    /**
     * FI_OPT_CM_DATA_SIZE.
     *
     * @return the largest connection data, in bytes, that connect, accept and reject carry
     */
    long cmDataSize();
}
