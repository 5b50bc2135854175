package io.jfabric.provider.libfabric;

import io.jfabric.FabricInfo;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Inject data as the native inject calls take it. Native segments pass through; heap data is copied into a
 * preallocated native bounce buffer, which inject allows because it consumes the data during the call. On an
 * FI_THREAD_SAFE domain the callers copy and call under this object's monitor, as the buffer is shared.
 */
final class InjectBuffer {
    private final MemorySegment bounce;
    /**
     * The endpoint's inject_size. The provider refuses longer injects itself (-FI_EMSGSIZE): fi_msg(3) and fi_rma(3)
     * limit inject data to it, but libfabric 1.17's tcp, rxm, shm and rxd send them anyway
     * (provider-libfabric/src/test/c/inject_over_size.c), and jfabric's own providers refuse them.
     */
    private final long injectLimit;

    /** Sized by the endpoint's info: its tx attributes' inject_size. */
    InjectBuffer(Arena arena, FabricInfo info) {
        long inj = info.txAttr == null ? 0 : Math.min(info.txAttr.injectSize, 1 << 16);
        this.bounce = arena.allocate(Math.max(inj, 8), 64);
        this.injectLimit = info.txAttr == null ? Long.MAX_VALUE : info.txAttr.injectSize;
    }

    /** Inject data as the native call takes it (heap data copied into the bounce buffer); null when too long. */
    MemorySegment injectable(MemorySegment buf) {
        if (buf.byteSize() > injectLimit) {
            return null;
        }
        if (buf.isNative()) {
            return buf;
        }
        if (buf.byteSize() > bounce.byteSize()) {
            return null;
        }
        MemorySegment.copy(buf, 0, bounce, 0, buf.byteSize());
        return bounce;
    }
}
