package io.jfabric.util;

import java.lang.foreign.MemorySegment;

/**
 * What an application registered ({@code fi_mr_attr}'s iov, access, offset and context), kept alike by every
 * provider's memory region; {@link RegisteredRegion} answers MemoryRegion's getters from it.
 *
 * @param segments the registered segments in the order peers address them: the region's own array, never
 *                 handed out (getters return copies), non-empty
 * @param access   the access rights as the region grants them
 * @param offset   the registration's offset (where remote addresses start without FI_MR_VIRT_ADDR)
 * @param context  the registration's context, or null
 */
public record RegisteredMemory(MemorySegment[] segments, long access, long offset, Object context) {
}
