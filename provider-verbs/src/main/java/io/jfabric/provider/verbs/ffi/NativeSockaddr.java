package io.jfabric.provider.verbs.ffi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;

/**
 * jfabric's FI_SOCKADDR_IN/IN6 addresses (the C {@code sockaddr_in}/{@code sockaddr_in6} bytes, see
 * {@code io.jfabric.util.Sockaddr}) in native memory, where rdma_cm takes and fills them.
 */
public final class NativeSockaddr {
    /** {@code sizeof(struct sockaddr_storage)}: what rdma_cm may read behind a sockaddr pointer. */
    private static final long STORAGE_SIZE = 128;
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int IN_SIZE = 16;
    private static final int IN6_SIZE = 28;

    private NativeSockaddr() {
    }

    /** A native copy of {@code sa} for rdma_cm, padded to sockaddr_storage size. */
    public static MemorySegment toNative(byte[] sa, SegmentAllocator allocator) {
        MemorySegment s = allocator.allocate(STORAGE_SIZE, 8);
        MemorySegment.copy(sa, 0, s, ValueLayout.JAVA_BYTE, 0, sa.length);
        return s;
    }

    /** Reads a sockaddr rdma_cm filled in (sockaddr_storage); null when its family is unset. */
    public static byte[] fromNative(MemorySegment storage) {
        int family = Short.toUnsignedInt(storage.get(ValueLayout.JAVA_SHORT, 0));
        if (family == AF_INET) {
            return storage.asSlice(0, IN_SIZE).toArray(ValueLayout.JAVA_BYTE);
        }
        if (family == AF_INET6) {
            return storage.asSlice(0, IN6_SIZE).toArray(ValueLayout.JAVA_BYTE);
        }
        return null;
    }
}
