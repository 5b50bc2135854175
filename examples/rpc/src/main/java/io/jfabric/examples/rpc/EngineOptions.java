package io.jfabric.examples.rpc;

/** Sizes and bounds of an {@link RpcEngine}; the defaults suit the examples. Mutable, read once at open. */
public final class EngineOptions {
    /** The defaults; change fields before {@link RpcEngine#open}. */
    public EngineOptions() {
    }

    /** Largest encoded input or output of one RPC; bigger payloads travel as bulk. */
    public int maxPayload = 4096;
    /** Requests this engine can have in flight as a client. */
    public int requestSlots = 256;
    /** Requests this engine can hold as a server (received, not yet answered). */
    public int incomingSlots = 64;
    /** Bulk transfers in flight. */
    public int bulkSlots = 64;
    /** A target with requests outstanding that answers no ping for this long is declared dead. */
    public long peerTimeoutMillis = Long.getLong("rpc.peerTimeoutMs", 5_000); // -D for slow (emulated) machines
    /** Drive progress from a background thread; trigger stays the caller's. */
    public boolean progressThread;

    public static EngineOptions defaults() {
        return new EngineOptions();
    }

    public EngineOptions progressThread(boolean on) {
        progressThread = on;
        return this;
    }

    public EngineOptions peerTimeoutMillis(long ms) {
        peerTimeoutMillis = ms;
        return this;
    }
}
