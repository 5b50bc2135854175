package io.jfabric.provider.rxm.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Codec for libfabric's {@code union rxm_cm_data} (prov/rxm/src/rxm.h, v1.17): the private data rxm
 * carries in the core's connect (24 bytes), accept (16 bytes) and reject (2 bytes) messages. All fields
 * are in the sender's host byte order; rxm refuses peers of another endianness, so we write and read
 * in the JVM's native order and announce it in {@code endianness}.
 */
public final class CmData {
    /** RXM_CM_DATA_VERSION. */
    public static final int CM_DATA_VERSION = 1;
    /** RXM_CTRL_VERSION: the ctrl_hdr version of every rxm packet. */
    public static final int CTRL_VERSION = 4;
    /** RXM_OP_VERSION as announced in the connect data (the op_hdr itself carries OFI_OP_VERSION 2). */
    public static final int OP_VERSION = 3;

    /** ofi_detect_endianness(): OFI_ENDIAN_BIG = 1, OFI_ENDIAN_LITTLE = 2. */
    public static final int ENDIAN_BIG = 1;
    public static final int ENDIAN_LITTLE = 2;

    /** cm_data.flow_ctrl: RXM_CM_FLOW_CTRL_LOCAL, PEER_ON, PEER_OFF. */
    public static final int FLOW_CTRL_LOCAL = 0;
    public static final int FLOW_CTRL_PEER_ON = 1;
    public static final int FLOW_CTRL_PEER_OFF = 2;

    /** Reject reasons: RXM_REJECT_UNSPEC, RXM_REJECT_ECONNREFUSED, RXM_REJECT_EALREADY. */
    public static final int REJECT_UNSPEC = 0;
    public static final int REJECT_ECONNREFUSED = 1;
    public static final int REJECT_EALREADY = 2;

    public static final int CONNECT_SIZE = 24;
    public static final int ACCEPT_SIZE = 16;
    public static final int REJECT_SIZE = 2;

    private CmData() {
    }

    /** This JVM's endianness code. */
    public static int localEndianness() {
        return ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? ENDIAN_LITTLE : ENDIAN_BIG;
    }

    /** conn_id as rxm builds it: the pid in the high 32 bits, the peer index in the low 32. */
    public static long connId(long pid, int peerIndex) {
        return (pid << 32) | (peerIndex & 0xFFFF_FFFFL);
    }

    public static int peerIndex(long connId) {
        return (int) connId;
    }

    public static long peerPid(long connId) {
        return connId >>> 32;
    }

    /**
     * The connect part: {@code port} is the sender's listening (pep) port, because the connection
     * request itself comes from an ephemeral port.
     */
    public record Connect(int version, int endianness, int ctrlVersion, int opVersion, int port, int flowCtrl,
                          long eagerLimit, long rxSize, long clientConnId) {

        /** The connect data this implementation sends. */
        public static Connect local(int port, long eagerLimit, long rxSize, long clientConnId) {
            return new Connect(CM_DATA_VERSION, localEndianness(), CTRL_VERSION, OP_VERSION, port,
                    FLOW_CTRL_PEER_OFF, eagerLimit, rxSize, clientConnId);
        }

        public byte[] encode() {
            ByteBuffer b = ByteBuffer.allocate(CONNECT_SIZE).order(ByteOrder.nativeOrder());
            b.put((byte) version).put((byte) endianness).put((byte) ctrlVersion).put((byte) opVersion);
            b.putShort((short) port).put((byte) flowCtrl).put((byte) 0);
            b.putInt((int) eagerLimit).putInt((int) rxSize).putLong(clientConnId);
            return b.array();
        }

        /** Decodes, or returns null when the data is too short to be an rxm connect. */
        public static Connect decode(byte[] data) {
            if (data == null || data.length < CONNECT_SIZE) {
                return null;
            }
            ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.nativeOrder());
            int version = b.get() & 0xFF;
            int endianness = b.get() & 0xFF;
            int ctrlVersion = b.get() & 0xFF;
            int opVersion = b.get() & 0xFF;
            int port = b.getShort() & 0xFFFF;
            int flowCtrl = b.get() & 0xFF;
            b.get(); // padding
            long eagerLimit = b.getInt() & 0xFFFF_FFFFL;
            long rxSize = b.getInt() & 0xFFFF_FFFFL;
            return new Connect(version, endianness, ctrlVersion, opVersion, port, flowCtrl, eagerLimit, rxSize,
                    b.getLong());
        }

        /** rxm_verify_connreq: null when acceptable, else what mismatches (rxm rejects on any). */
        public String mismatch(long localEagerLimit) {
            if (version != CM_DATA_VERSION) {
                return "cm data version " + version + " (expected " + CM_DATA_VERSION + ")";
            }
            if (endianness != localEndianness()) {
                return "endianness " + endianness + " (expected " + localEndianness() + ")";
            }
            if (ctrlVersion != CTRL_VERSION) {
                return "ctrl version " + ctrlVersion + " (expected " + CTRL_VERSION + ")";
            }
            if (opVersion != OP_VERSION) {
                return "op version " + opVersion + " (expected " + OP_VERSION + ")";
            }
            if (eagerLimit != localEagerLimit) {
                return "eager limit " + eagerLimit + " (expected " + localEagerLimit
                        + "; both sides need the same FI_OFI_RXM_BUFFER_SIZE)";
            }
            return null;
        }
    }

    /** The accept part. */
    public record Accept(long serverConnId, long rxSize, int flowCtrl) {
        public byte[] encode() {
            ByteBuffer b = ByteBuffer.allocate(ACCEPT_SIZE).order(ByteOrder.nativeOrder());
            b.putLong(serverConnId).putInt((int) rxSize).put((byte) flowCtrl);
            return b.array();
        }

        public static Accept decode(byte[] data) {
            if (data == null || data.length < ACCEPT_SIZE) {
                return null;
            }
            ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.nativeOrder());
            return new Accept(b.getLong(), b.getInt() & 0xFFFF_FFFFL, b.get() & 0xFF);
        }
    }

    /**
     * jfabric's same-host announcement, appended to the connect and accept data at byte 24 (libfabric's union
     * is 24 bytes; libfabric reads only its own fields, so peers of either kind accept it). It names this
     * process and an 8-byte token in its memory: a peer that can read the token with process_vm_readv and finds
     * the value is on this host, as this user, and may copy rendezvous data straight out of this process.
     * {@code pid} is this process's id as its own kernel namespace sees it; the token check is what proves the
     * peer sees the same one.
     *
     * <pre>
     *  24 u64 magic "JFRXMSH1"   32 u32 pid   36 u32 0   40 u64 token address   48 u64 token value
     * </pre>
     */
    public record SameHost(long pid, long tokenAddress, long token) {
        public static final int OFFSET = 24;
        public static final int SIZE = 32;
        static final long MAGIC = 0x4A46_5258_4D53_4831L;

        /** {@code base} (connect or accept data) padded to 24 bytes, then this announcement. */
        public byte[] appendTo(byte[] base) {
            ByteBuffer b = ByteBuffer.allocate(OFFSET + SIZE).order(ByteOrder.nativeOrder());
            b.put(base, 0, Math.min(base.length, OFFSET)).position(OFFSET);
            b.putLong(MAGIC).putInt((int) pid).putInt(0).putLong(tokenAddress).putLong(token);
            return b.array();
        }

        /** The announcement in connect or accept data, or null where there is none (a libfabric peer). */
        public static SameHost decode(byte[] data) {
            if (data == null || data.length < OFFSET + SIZE) {
                return null;
            }
            ByteBuffer b = ByteBuffer.wrap(data, OFFSET, SIZE).order(ByteOrder.nativeOrder());
            if (b.getLong() != MAGIC) {
                return null;
            }
            long pid = b.getInt() & 0xFFFF_FFFFL;
            b.getInt();
            return new SameHost(pid, b.getLong(), b.getLong());
        }
    }

    /** The reject part. */
    public record Reject(int version, int reason) {
        public static Reject of(int reason) {
            return new Reject(CM_DATA_VERSION, reason);
        }

        public byte[] encode() {
            return new byte[] {(byte) version, (byte) reason};
        }

        /**
         * Decodes a reject's data as rxm_process_reject does: missing data or a foreign version reads as
         * ECONNREFUSED.
         */
        public static Reject decode(byte[] data) {
            if (data == null || data.length < REJECT_SIZE || (data[0] & 0xFF) != CM_DATA_VERSION) {
                return new Reject(CM_DATA_VERSION, REJECT_ECONNREFUSED);
            }
            return new Reject(data[0] & 0xFF, data[1] & 0xFF);
        }
    }
}
