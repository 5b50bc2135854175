package io.jfabric.provider.tcp;

import java.nio.ByteBuffer;

/**
 * The target side of RMA: turns a (key, address, length) from the wire into a view of registered memory,
 * after checking the key exists, grants {@code access}, and covers the range. Mirrors
 * {@code ofi_mr_verify}. Not thread-safe per slot; the registry behind it is.
 */
interface RmaTarget {
    /** The view, or null with {@link #lastError()} / {@link #lastReason()} set. */
    ByteBuffer resolve(long key, long addr, long len, long access, SegmentView slot);

    /** errno of the last refusal (EACCES, EINVAL, ENOKEY...). */
    int lastError();

    String lastReason();
}
