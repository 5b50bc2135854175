package io.jfabric;

/** Mirrors {@code struct fid_pep} ({@code fi_passive_ep}): listens for FI_EP_MSG connection requests. */
public interface PassiveEndpoint extends FabricObject {
    /** {@code fi_pep_bind} to an EQ, which receives CONNREQ events. */
    void bind(EventQueue eq);

    /** {@code fi_listen}. */
    void listen();

    /** {@code fi_reject}: refuses the CONNREQ whose info carried {@code handle}, with optional data. */
    void reject(Object handle, byte[] data);

    /** {@code fi_getname}: the bound address (with the real port once listening). */
    byte[] getName();

    /** {@code fi_setname}. */
    void setName(byte[] addr);

    /** Largest CM data that connect/accept/reject carry (FI_OPT_CM_DATA_SIZE). */
    long cmDataSize();
}
