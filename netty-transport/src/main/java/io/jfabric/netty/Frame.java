package io.jfabric.netty;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The stream protocol's frame header, 16 bytes little-endian, in front of every message a channel sends:
 *
 * <pre>
 *  0  u8   type      CONNECT 1, ACCEPT 2, DATA 3, CREDIT 4, FIN 5
 *  1  u8   version   1
 *  2  u16  flags     FIN: FLAG_CLOSED when the sender closed the whole channel, not only its output
 *  4  u32  seq       per-direction frame number from 0; a gap or repeat is a malformed stream
 *  8  u32  credit    receive slots the sender has freed since its last grant (the peer may send that many more DATA)
 * 12  u32  length    payload bytes after the header
 * </pre>
 *
 * CONNECT's payload is the sender's slot size (u32) and then the client endpoint's name, ACCEPT's the same with the
 * accepting endpoint's name (fi_getname); the {@code credit} of both is the sender's initial window. DATA carries stream bytes. CREDIT, FIN and the
 * handshake use no credit: the receiver keeps {@link #CONTROL_SLOTS} receive slots for them.
 */
final class Frame {
    static final int HEADER = 16;
    static final byte VERSION = 1;

    static final byte CONNECT = 1;
    static final byte ACCEPT = 2;
    static final byte DATA = 3;
    static final byte CREDIT = 4;
    static final byte FIN = 5;

    static final short FLAG_CLOSED = 1;

    /**
     * Receive slots beyond the window, for frames that take no credit. A CREDIT is sent only after half a window
     * was freed, so at most two are in flight; FIN comes once; ACCEPT once.
     */
    static final int CONTROL_SLOTS = 4;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Frame() {
    }

    static void write(MemorySegment at, byte type, short flags, int seq, int credit, int length) {
        at.set(ValueLayout.JAVA_BYTE, 0, type);
        at.set(ValueLayout.JAVA_BYTE, 1, VERSION);
        at.set(U16, 2, flags);
        at.set(U32, 4, seq);
        at.set(U32, 8, credit);
        at.set(U32, 12, length);
    }

    static byte type(MemorySegment at) {
        return at.get(ValueLayout.JAVA_BYTE, 0);
    }

    static byte version(MemorySegment at) {
        return at.get(ValueLayout.JAVA_BYTE, 1);
    }

    static short flags(MemorySegment at) {
        return at.get(U16, 2);
    }

    static int seq(MemorySegment at) {
        return at.get(U32, 4);
    }

    static int credit(MemorySegment at) {
        return at.get(U32, 8);
    }

    static int length(MemorySegment at) {
        return at.get(U32, 12);
    }

    /**
     * Why the frame of {@code received} bytes in {@code at} is malformed, or null when its header is sound. A
     * frame is checked before anything in it is believed.
     */
    static String malformed(MemorySegment at, long received) {
        if (received < HEADER) {
            return "frame of " + received + " bytes is shorter than its " + HEADER + "-byte header";
        }
        if (version(at) != VERSION) {
            return "frame version " + version(at) + " (expected " + VERSION + ")";
        }
        byte type = type(at);
        if (type < CONNECT || type > FIN) {
            return "unknown frame type " + type;
        }
        long length = Integer.toUnsignedLong(length(at));
        if (length != received - HEADER) {
            return "frame says " + length + " payload bytes but " + (received - HEADER) + " arrived";
        }
        if (credit(at) < 0) {
            return "frame grants a negative credit " + credit(at);
        }
        return null;
    }
}
