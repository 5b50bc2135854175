package io.jfabric.examples.rpc;

import io.jfabric.examples.rpc.Wire.ChunkReply;
import io.jfabric.examples.rpc.Wire.ChunkRequest;
import io.jfabric.examples.rpc.Wire.MutableLong;

/**
 * The RPCs of the file server, registered the same way on both sides (the client passes no handlers),
 * as Mercury programs call MERCURY_REGISTER on both.
 */
public final class FileRpcs {
    public static final int OPEN = 1;
    public static final int WRITE = 2;
    public static final int READ = 3;
    public static final int SHUTDOWN = 4;
    public static final int EMPTY = 5;
    public static final int PULL = 6;
    public static final int DELAYED_PULL = 7;
    public static final int LAST_DELAYED_STATUS = 8;

    /** OPEN(name) → file handle: creates or truncates the file in the server's directory. */
    public final Rpc<String, MutableLong> open;
    /** WRITE(chunk) → reply: the server pulls the chunk from the client's bulk and writes it at the offset. */
    public final Rpc<ChunkRequest, ChunkReply> write;
    /** READ(chunk) → reply: the server reads at the offset and pushes into the client's bulk. */
    public final Rpc<ChunkRequest, ChunkReply> read;
    /** SHUTDOWN → the server answers, then exits. */
    public final Rpc<Void, Void> shutdown;
    /** EMPTY: nothing in, nothing out (round-trip benchmark). */
    public final Rpc<Void, Void> empty;
    /** PULL(chunk): the server pulls the bulk and discards it (bandwidth benchmark). */
    public final Rpc<ChunkRequest, ChunkReply> pull;
    /** DELAYED_PULL(chunk): waits delayMillis, then pulls; fault injection for the timeout test. */
    public final Rpc<ChunkRequest, ChunkReply> delayedPull;
    /** LAST_DELAYED_STATUS → the status of the last DELAYED_PULL's transfer (0, a negative errno, or 1 if none yet). */
    public final Rpc<Void, MutableLong> lastDelayedStatus;

    /** Client side: no handlers. */
    public FileRpcs(RpcEngine engine) {
        this(engine, null);
    }

    FileRpcs(RpcEngine engine, RpcServer server) {
        open = engine.register(OPEN, "open", Wire.STRING_CODEC, Wire.LONG_CODEC, server == null ? null : server::open);
        write = engine.register(WRITE, "write", Wire.CHUNK_REQUEST, Wire.CHUNK_REPLY,
                server == null ? null : server::write);
        read = engine.register(READ, "read", Wire.CHUNK_REQUEST, Wire.CHUNK_REPLY, server == null ? null : server::read);
        shutdown = engine.register(SHUTDOWN, "shutdown", Codec.VOID, Codec.VOID,
                server == null ? null : server::shutdown);
        empty = engine.register(EMPTY, "empty", Codec.VOID, Codec.VOID, server == null ? null : r -> r.respond(null));
        pull = engine.register(PULL, "pull", Wire.CHUNK_REQUEST, Wire.CHUNK_REPLY, server == null ? null : server::pull);
        delayedPull = engine.register(DELAYED_PULL, "delayed-pull", Wire.CHUNK_REQUEST, Wire.CHUNK_REPLY,
                server == null ? null : server::delayedPull);
        lastDelayedStatus = engine.register(LAST_DELAYED_STATUS, "last-delayed-status", Codec.VOID, Wire.LONG_CODEC,
                server == null ? null : server::lastDelayedStatus);
    }
}
