package io.jfabric.examples.rpc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/** Codecs of the example programs' RPCs: little-endian fixed fields, strings as u16 length + UTF-8. */
public final class Wire {
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private Wire() {
    }

    /** A boxed long that decoders refill, so a long-valued RPC does not allocate per call. */
    public static final class MutableLong {
    /** Zero. */
    public MutableLong() {
    }

        public long value;

        public MutableLong set(long v) {
            value = v;
            return this;
        }
    }

    public static final Codec<MutableLong> LONG_CODEC = new Codec<>() {
        @Override
        public long encode(MutableLong v, MemorySegment out) {
            if (out.byteSize() < 8) {
                return -1;
            }
            out.set(LONG, 0, v.value);
            return 8;
        }

        @Override
        public MutableLong decode(MemorySegment in, MutableLong reuse) {
            return (reuse == null ? new MutableLong() : reuse).set(in.get(LONG, 0));
        }
    };

    /** Strings: control-path RPCs only (decoding allocates the String). */
    public static final Codec<String> STRING_CODEC = new Codec<>() {
        @Override
        public long encode(String v, MemorySegment out) {
            byte[] b = v.getBytes(StandardCharsets.UTF_8);
            if (b.length > 0xFFFF || out.byteSize() < 2 + b.length) {
                return -1;
            }
            out.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) b.length);
            MemorySegment.copy(b, 0, out, ValueLayout.JAVA_BYTE, 2, b.length);
            return 2 + b.length;
        }

        @Override
        public String decode(MemorySegment in, String reuse) {
            int n = in.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0) & 0xFFFF;
            byte[] b = new byte[n];
            MemorySegment.copy(in, ValueLayout.JAVA_BYTE, 2, b, 0, n);
            return new String(b, StandardCharsets.UTF_8);
        }
    };

    /** Input of the chunk RPCs: which file, where, how much, and the requester's memory. */
    public static final class ChunkRequest {
    /** An empty request, to fill before forwarding. */
    public ChunkRequest() {
    }

        public int file;
        public long offset;
        public long length;
        /** Milliseconds the server waits before acting (fault-injection RPCs only). */
        public long delayMillis;
        public final BulkDescriptor bulk = new BulkDescriptor();
    }

    public static final Codec<ChunkRequest> CHUNK_REQUEST = new Codec<>() {
        @Override
        public long encode(ChunkRequest v, MemorySegment out) {
            if (out.byteSize() < 28) {
                return -1;
            }
            out.set(INT, 0, v.file);
            out.set(LONG, 4, v.offset);
            out.set(LONG, 12, v.length);
            out.set(LONG, 20, v.delayMillis);
            return v.bulk.encode(out, 28);
        }

        @Override
        public ChunkRequest decode(MemorySegment in, ChunkRequest reuse) {
            ChunkRequest r = reuse == null ? new ChunkRequest() : reuse;
            r.file = in.get(INT, 0);
            r.offset = in.get(LONG, 4);
            r.length = in.get(LONG, 12);
            r.delayMillis = in.get(LONG, 20);
            r.bulk.decode(in, 28);
            return r;
        }
    };

    /** Output of the chunk RPCs: bytes moved and the CRC32C of them as the server saw them. */
    public static final class ChunkReply {
    /** An empty reply. */
    public ChunkReply() {
    }

        public long length;
        public int crc;

        public ChunkReply set(long length, int crc) {
            this.length = length;
            this.crc = crc;
            return this;
        }
    }

    public static final Codec<ChunkReply> CHUNK_REPLY = new Codec<>() {
        @Override
        public long encode(ChunkReply v, MemorySegment out) {
            if (out.byteSize() < 12) {
                return -1;
            }
            out.set(LONG, 0, v.length);
            out.set(INT, 8, v.crc);
            return 12;
        }

        @Override
        public ChunkReply decode(MemorySegment in, ChunkReply reuse) {
            return (reuse == null ? new ChunkReply() : reuse).set(in.get(LONG, 0), in.get(INT, 8));
        }
    };
}
