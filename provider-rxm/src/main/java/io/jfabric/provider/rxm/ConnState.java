package io.jfabric.provider.rxm;

/** libfabric's {@code enum rxm_cm_state}: where one on-demand connection stands. */
public enum ConnState {
    /** No core endpoint; the next send or RMA starts a connect. */
    IDLE,
    /** We sent a connection request and wait for CONNECTED or a reject. */
    CONNECTING,
    /** We accepted the peer's request and wait for CONNECTED. */
    ACCEPTING,
    /** Data may flow. */
    CONNECTED
}
