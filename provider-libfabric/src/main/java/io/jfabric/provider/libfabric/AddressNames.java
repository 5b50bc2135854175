package io.jfabric.provider.libfabric;

import io.jfabric.Errno;
import io.jfabric.provider.libfabric.ffi.FabricInline;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** fi_getname / fi_getpeer into a byte array, growing the buffer when the provider says FI_ETOOSMALL. */
final class AddressNames {
    private AddressNames() {
    }

    /** A native address as jfabric carries it: FI_ADDR_STR strings lose their NUL and anything after it. */
    static byte[] fromNative(byte[] raw, io.jfabric.AddressFormat format) {
        if (format != io.jfabric.AddressFormat.ADDR_STR) {
            return raw;
        }
        int end = 0;
        while (end < raw.length && raw[end] != 0) {
            end++;
        }
        return java.util.Arrays.copyOf(raw, end);
    }

    /** A jfabric address as libfabric takes it: FI_ADDR_STR strings get their NUL back. */
    static byte[] toNative(byte[] addr, io.jfabric.AddressFormat format) {
        if (addr == null || format != io.jfabric.AddressFormat.ADDR_STR) {
            return addr;
        }
        return addr.length > 0 && addr[addr.length - 1] == 0 ? addr : java.util.Arrays.copyOf(addr, addr.length + 1);
    }

    static byte[] get(MemorySegment fid, boolean peer, String what, io.jfabric.AddressFormat format) {
        return fromNative(get(fid, peer, what), format);
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
                ReturnCodes.check(rc, what, peer ? "the endpoint must be connected" : "bind and enable the endpoint "
                        + "(or set a source address) first");
                return buf.asSlice(0, Math.min(n, size)).toArray(ValueLayout.JAVA_BYTE);
            }
        }
        throw ReturnCodes.failure(-Errno.ETOOSMALL, what, "the provider keeps asking for a larger buffer");
    }
}
