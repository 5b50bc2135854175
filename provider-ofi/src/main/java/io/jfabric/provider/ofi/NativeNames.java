package io.jfabric.provider.ofi;

import io.jfabric.Errno;
import io.jfabric.provider.ofi.ffi.FabricInline;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** fi_getname / fi_getpeer into a byte array, growing the buffer when the provider says FI_ETOOSMALL. */
final class NativeNames {
    private NativeNames() {
    }

    static byte[] get(MemorySegment fid, boolean peer, String what) {
        long size = 128;
        for (int attempt = 0; attempt < 3; attempt++) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment buf = a.allocate(size);
                MemorySegment len = a.allocate(ValueLayout.JAVA_LONG);
                len.set(ValueLayout.JAVA_LONG, 0, size);
                int rc = peer ? FabricInline.fi_getpeer(fid, buf, len) : FabricInline.fi_getname(fid, buf, len);
                long n = len.get(ValueLayout.JAVA_LONG, 0);
                if (rc == -Errno.ETOOSMALL && n > size) {
                    size = n;
                    continue;
                }
                NativeErrors.check(rc, what, peer ? "the endpoint must be connected" : "bind and enable the endpoint "
                        + "(or set a source address) first");
                return buf.asSlice(0, Math.min(n, size)).toArray(ValueLayout.JAVA_BYTE);
            }
        }
        throw NativeErrors.failure(-Errno.ETOOSMALL, what, "the provider keeps asking for a larger buffer");
    }
}
