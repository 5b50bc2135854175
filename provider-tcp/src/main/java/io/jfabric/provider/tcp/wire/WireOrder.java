package io.jfabric.provider.tcp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The byte order of the multi-byte fields of data headers on one connection.
 *
 * <p>Mirrors libfabric tcp's {@code hdr_bswap} choice ({@code tcpx_hdr_none} or {@code tcpx_hdr_bswap}):
 * when both peers have the same endianness, headers travel in that host order; when they differ, both sides
 * convert with {@code ntohs/ntohll}, so the wire carries network (big-endian) order. The choice is made from
 * the CM endianness probe ({@code conn_data == 1}). The layouts are built once so that choosing an order per
 * message allocates nothing.
 */
public final class WireOrder {
    /** Both peers share this host's byte order. */
    public static final WireOrder HOST = new WireOrder(ByteOrder.nativeOrder());
    /** The peers differ: headers are big-endian on the wire. */
    public static final WireOrder NETWORK = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN
            ? HOST : new WireOrder(ByteOrder.BIG_ENDIAN);

    /*
     * The two orders' layouts as constants. A layout read from an instance field is not a constant to the JIT, so
     * every header field access through it took the generic VarHandle path (bounds and alignment checks, no
     * folding): about 4 % of tcp;ofi_rxm's per-message time in MessageRateBench. The accessors below pick one of
     * these by the connection's order, a compare of one reference, and every access compiles to a plain load.
     */
    private static final ValueLayout.OfShort HOST_U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    private static final ValueLayout.OfLong HOST_U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    private static final ValueLayout.OfShort NET_U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong NET_U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    final ByteOrder order;
    final ValueLayout.OfShort u16;
    final ValueLayout.OfInt u32;
    final ValueLayout.OfLong u64;

    private WireOrder(ByteOrder order) {
        this.order = order;
        this.u16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(order);
        this.u32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(order);
        this.u64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(order);
    }

    /** The order to use with a peer whose endianness probe said it matches (or not) this host. */
    public static WireOrder forPeer(boolean sameEndianness) {
        return sameEndianness ? HOST : NETWORK;
    }

    /** The byte order of the multi-byte header fields. */
    public ByteOrder byteOrder() {
        return order;
    }

    @Override
    public String toString() {
        return this == HOST ? "host(" + order + ")" : "network(" + order + ")";
    }

    static short getU16(MemorySegment h, WireOrder o, long off) {
        return o == HOST ? h.get(HOST_U16, off) : h.get(NET_U16, off);
    }

    static void setU16(MemorySegment h, WireOrder o, long off, short v) {
        if (o == HOST) {
            h.set(HOST_U16, off, v);
        } else {
            h.set(NET_U16, off, v);
        }
    }

    static long getU64(MemorySegment h, WireOrder o, long off) {
        return o == HOST ? h.get(HOST_U64, off) : h.get(NET_U64, off);
    }

    static void setU64(MemorySegment h, WireOrder o, long off, long v) {
        if (o == HOST) {
            h.set(HOST_U64, off, v);
        } else {
            h.set(NET_U64, off, v);
        }
    }
}
