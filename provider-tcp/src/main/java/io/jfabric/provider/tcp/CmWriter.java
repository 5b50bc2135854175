package io.jfabric.provider.tcp;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.provider.tcp.wire.CmMessage;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/** Builds CM messages (connreq, connresp, nack) into a fresh buffer and writes them. Control path. */
final class CmWriter {
    private CmWriter() {
    }

    static ByteBuffer build(int type, byte[] data) {
        int len = data == null ? 0 : data.length;
        if (len > CmMessage.MAX_DATA_SIZE) {
            throw new FabricException(Errno.EINVAL, "CM data is " + len + " bytes; tcp carries at most "
                    + CmMessage.MAX_DATA_SIZE + " (FI_OPT_CM_DATA_SIZE)");
        }
        ByteBuffer b = ByteBuffer.allocateDirect(CmMessage.HEADER_SIZE + len);
        MemorySegment seg = MemorySegment.ofBuffer(b);
        int n = CmMessage.encode(seg, type, len == 0 ? null : MemorySegment.ofArray(data), len);
        if (n < 0) {
            throw new FabricException(Errno.EINVAL, "cannot encode CM message");
        }
        b.limit(n);
        return b;
    }

    /**
     * Writes a whole small CM message on a non-blocking socket, waiting briefly if the socket buffer is full
     * (it never is for a fresh connection). Returns false if it could not be written within a second.
     */
    static boolean writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (b.hasRemaining()) {
            if (ch.write(b) == 0) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                Thread.onSpinWait();
            }
        }
        return true;
    }
}
