package io.jfabric.examples.rpc;

import java.lang.foreign.MemorySegment;

/**
 * Encodes and decodes one RPC's input or output in a native buffer: Mercury's hg_proc callbacks, split
 * into the two directions. Codecs must not allocate once warm: {@link #decode} fills {@code reuse}
 * (the engine keeps one per request slot) and returns it.
 *
 * @param <T> the value type
 */
public interface Codec<T> {
    /** Writes {@code value} at the start of {@code out}; returns the bytes written, or -1 when it does not fit. */
    long encode(T value, MemorySegment out);

    /** Reads a value from {@code in} (exactly the bytes the peer wrote) into {@code reuse}, or a new object when null. */
    T decode(MemorySegment in, T reuse);

    /** The codec of RPCs that carry nothing. */
    Codec<Void> VOID = new Codec<>() {
        @Override
        public long encode(Void value, MemorySegment out) {
            return 0;
        }

        @Override
        public Void decode(MemorySegment in, Void reuse) {
            return null;
        }
    };
}
