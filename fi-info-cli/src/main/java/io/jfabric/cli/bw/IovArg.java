package io.jfabric.cli.bw;

import io.jfabric.MemoryRegion;
import picocli.CommandLine.Option;

import java.lang.foreign.MemorySegment;

/**
 * The {@code --iov} option of {@code jfabric bw} and {@code rma-bw} (jfabric's addition; fabtests always post one
 * buffer): each operation names its buffer as that many pieces, through the calls' v and msg forms, so a provider's
 * gather and scatter paths can be measured against its one-buffer path and against libfabric's.
 */
public final class IovArg {
    /** fabtests' and every provider's smallest iov_limit worth asking: libfabric's tcp, shm and rxm offer 4. */
    static final int MAX = 4;

    @Option(names = "--iov", paramLabel = "<count>", description = "local buffers per operation, 1 to 4: each"
            + " operation's buffer is cut into that many pieces and posted through the v or msg form of its call"
            + " (jfabric's addition) (1)")
    int count = 1;

    /** The count, checked. */
    int checked() {
        if (count < 1 || count > MAX) {
            throw new IllegalArgumentException("--iov " + count + ": use 1 to " + MAX);
        }
        return count;
    }

    /**
     * The first {@code length} bytes of each of {@code bufs} as {@code n} pieces (fewer when {@code length} is
     * smaller), the last taking what does not divide evenly; null when that is one piece. Cut when a size starts,
     * so posting them allocates nothing.
     */
    static MemorySegment[][] cut(MemorySegment[] bufs, long length, int n) {
        int pieces = (int) Math.min(n, Math.max(length, 1));
        if (pieces == 1) {
            return null;
        }
        MemorySegment[][] out = new MemorySegment[bufs.length][pieces];
        long piece = length / pieces;
        for (int i = 0; i < bufs.length; i++) {
            for (int k = 0; k < pieces; k++) {
                out[i][k] = bufs[i].asSlice(k * piece, k == pieces - 1 ? length - k * piece : piece);
            }
        }
        return out;
    }

    /** The descriptors of {@code n} pieces of buffers {@code mr} registers (all null where no MR is needed). */
    static MemoryRegion[] descriptors(MemoryRegion mr, int n) {
        MemoryRegion[] d = new MemoryRegion[n];
        java.util.Arrays.fill(d, mr);
        return d;
    }
}
