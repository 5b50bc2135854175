package io.jfabric.provider.verbs.ffi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@code <rdma/rdma_cma.h>} (librdmacm, rdma-core 44) in jextract's shape: the constants and downcalls
 * provider-verbs uses. librdmacm reports failures as -1 plus errno, so every handle is linked with
 * {@code captureCallState("errno")} (an edit jextract cannot make) and takes the capture segment
 * ({@link NativeLibrary#allocateCaptureState}) as its first argument; read it with
 * {@link NativeLibrary#errno}.
 */
@SuppressWarnings("unused")
public final class rdma_cma_h {
    private rdma_cma_h() {
    }

    static final SymbolLookup LIB = NativeLibrary.lookup(NativeLibrary.RDMACM);

    // enum rdma_port_space
    public static final int RDMA_PS_TCP = 262;
    // enum rdma_cm_event_type
    public static final int RDMA_CM_EVENT_ADDR_RESOLVED = 0;
    public static final int RDMA_CM_EVENT_ADDR_ERROR = 1;
    public static final int RDMA_CM_EVENT_ROUTE_RESOLVED = 2;
    public static final int RDMA_CM_EVENT_ROUTE_ERROR = 3;
    public static final int RDMA_CM_EVENT_CONNECT_REQUEST = 4;
    public static final int RDMA_CM_EVENT_CONNECT_RESPONSE = 5;
    public static final int RDMA_CM_EVENT_CONNECT_ERROR = 6;
    public static final int RDMA_CM_EVENT_UNREACHABLE = 7;
    public static final int RDMA_CM_EVENT_REJECTED = 8;
    public static final int RDMA_CM_EVENT_ESTABLISHED = 9;
    public static final int RDMA_CM_EVENT_DISCONNECTED = 10;
    public static final int RDMA_CM_EVENT_DEVICE_REMOVAL = 11;
    public static final int RDMA_CM_EVENT_ADDR_CHANGE = 14;
    public static final int RDMA_CM_EVENT_TIMEWAIT_EXIT = 15;
    // <sys/socket.h>, used in the sockaddrs rdma_cm takes
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;

    private static final class rdma_create_event_channel$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_create_event_channel",
                FunctionDescriptor.of(ADDRESS));
    }

    /** {@code struct rdma_event_channel *rdma_create_event_channel(void)}: NULL with errno on failure. */
    public static MemorySegment rdma_create_event_channel(MemorySegment errnoState) {
        try {
            return (MemorySegment) rdma_create_event_channel$.HANDLE.invokeExact(errnoState);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_destroy_event_channel$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_destroy_event_channel",
                FunctionDescriptor.ofVoid(ADDRESS));
    }

    /** {@code void rdma_destroy_event_channel(struct rdma_event_channel *)}. */
    public static void rdma_destroy_event_channel(MemorySegment errnoState, MemorySegment channel) {
        try {
            rdma_destroy_event_channel$.HANDLE.invokeExact(errnoState, channel);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_create_id$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_create_id",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    }

    /** {@code int rdma_create_id(struct rdma_event_channel *, struct rdma_cm_id **id, void *context, enum rdma_port_space ps)}: 0, or -1 with errno. */
    public static int rdma_create_id(MemorySegment errnoState, MemorySegment channel, MemorySegment idOut, MemorySegment context, int ps) {
        try {
            return (int) rdma_create_id$.HANDLE.invokeExact(errnoState, channel, idOut, context, ps);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_destroy_id$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_destroy_id",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /** {@code int rdma_destroy_id(struct rdma_cm_id *)}: 0, or -1 with errno. */
    public static int rdma_destroy_id(MemorySegment errnoState, MemorySegment id) {
        try {
            return (int) rdma_destroy_id$.HANDLE.invokeExact(errnoState, id);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_bind_addr$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_bind_addr",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }

    /** {@code int rdma_bind_addr(struct rdma_cm_id *, struct sockaddr *)}: 0, or -1 with errno. */
    public static int rdma_bind_addr(MemorySegment errnoState, MemorySegment id, MemorySegment addr) {
        try {
            return (int) rdma_bind_addr$.HANDLE.invokeExact(errnoState, id, addr);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_resolve_addr$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_resolve_addr",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    }

    /** {@code int rdma_resolve_addr(struct rdma_cm_id *, struct sockaddr *src_addr, struct sockaddr *dst_addr, int timeout_ms)}: 0, or -1 with errno. */
    public static int rdma_resolve_addr(MemorySegment errnoState, MemorySegment id, MemorySegment srcAddr, MemorySegment dstAddr, int timeoutMs) {
        try {
            return (int) rdma_resolve_addr$.HANDLE.invokeExact(errnoState, id, srcAddr, dstAddr, timeoutMs);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_resolve_route$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_resolve_route",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    }

    /** {@code int rdma_resolve_route(struct rdma_cm_id *, int timeout_ms)}: 0, or -1 with errno. */
    public static int rdma_resolve_route(MemorySegment errnoState, MemorySegment id, int timeoutMs) {
        try {
            return (int) rdma_resolve_route$.HANDLE.invokeExact(errnoState, id, timeoutMs);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_listen$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_listen",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    }

    /** {@code int rdma_listen(struct rdma_cm_id *, int backlog)}: 0, or -1 with errno. */
    public static int rdma_listen(MemorySegment errnoState, MemorySegment id, int backlog) {
        try {
            return (int) rdma_listen$.HANDLE.invokeExact(errnoState, id, backlog);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_connect$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_connect",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }

    /** {@code int rdma_connect(struct rdma_cm_id *, struct rdma_conn_param *)}: 0, or -1 with errno. */
    public static int rdma_connect(MemorySegment errnoState, MemorySegment id, MemorySegment connParam) {
        try {
            return (int) rdma_connect$.HANDLE.invokeExact(errnoState, id, connParam);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_accept$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_accept",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }

    /** {@code int rdma_accept(struct rdma_cm_id *, struct rdma_conn_param *)}: 0, or -1 with errno. */
    public static int rdma_accept(MemorySegment errnoState, MemorySegment id, MemorySegment connParam) {
        try {
            return (int) rdma_accept$.HANDLE.invokeExact(errnoState, id, connParam);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_reject$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_reject",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE));
    }

    /** {@code int rdma_reject(struct rdma_cm_id *, const void *private_data, uint8_t private_data_len)}: 0, or -1 with errno. */
    public static int rdma_reject(MemorySegment errnoState, MemorySegment id, MemorySegment privateData, byte privateDataLen) {
        try {
            return (int) rdma_reject$.HANDLE.invokeExact(errnoState, id, privateData, privateDataLen);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_disconnect$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_disconnect",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /** {@code int rdma_disconnect(struct rdma_cm_id *)}: 0, or -1 with errno. */
    public static int rdma_disconnect(MemorySegment errnoState, MemorySegment id) {
        try {
            return (int) rdma_disconnect$.HANDLE.invokeExact(errnoState, id);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_get_cm_event$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_get_cm_event",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }

    /** {@code int rdma_get_cm_event(struct rdma_event_channel *, struct rdma_cm_event **event)}: 0, or -1 with errno; blocks unless the channel's fd is readable. */
    public static int rdma_get_cm_event(MemorySegment errnoState, MemorySegment channel, MemorySegment eventOut) {
        try {
            return (int) rdma_get_cm_event$.HANDLE.invokeExact(errnoState, channel, eventOut);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_ack_cm_event$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_ack_cm_event",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /** {@code int rdma_ack_cm_event(struct rdma_cm_event *)}: 0, or -1 with errno. */
    public static int rdma_ack_cm_event(MemorySegment errnoState, MemorySegment event) {
        try {
            return (int) rdma_ack_cm_event$.HANDLE.invokeExact(errnoState, event);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_create_qp$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_create_qp",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    }

    /** {@code int rdma_create_qp(struct rdma_cm_id *, struct ibv_pd *, struct ibv_qp_init_attr *)}: 0, or -1 with errno; fills the attr's cap with what was granted. */
    public static int rdma_create_qp(MemorySegment errnoState, MemorySegment id, MemorySegment pd, MemorySegment qpInitAttr) {
        try {
            return (int) rdma_create_qp$.HANDLE.invokeExact(errnoState, id, pd, qpInitAttr);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_destroy_qp$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_destroy_qp",
                FunctionDescriptor.ofVoid(ADDRESS));
    }

    /** {@code void rdma_destroy_qp(struct rdma_cm_id *)}. */
    public static void rdma_destroy_qp(MemorySegment errnoState, MemorySegment id) {
        try {
            rdma_destroy_qp$.HANDLE.invokeExact(errnoState, id);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_get_devices$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_get_devices",
                FunctionDescriptor.of(ADDRESS, ADDRESS));
    }

    /** {@code struct ibv_context **rdma_get_devices(int *num_devices)}: NULL-terminated; NULL with errno on failure. */
    public static MemorySegment rdma_get_devices(MemorySegment errnoState, MemorySegment numDevices) {
        try {
            return (MemorySegment) rdma_get_devices$.HANDLE.invokeExact(errnoState, numDevices);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_free_devices$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_free_devices",
                FunctionDescriptor.ofVoid(ADDRESS));
    }

    /** {@code void rdma_free_devices(struct ibv_context **list)}. */
    public static void rdma_free_devices(MemorySegment errnoState, MemorySegment list) {
        try {
            rdma_free_devices$.HANDLE.invokeExact(errnoState, list);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_event_str$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_event_str",
                FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    /** {@code const char *rdma_event_str(enum rdma_cm_event_type)}. */
    public static MemorySegment rdma_event_str(MemorySegment errnoState, int event) {
        try {
            return (MemorySegment) rdma_event_str$.HANDLE.invokeExact(errnoState, event);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class rdma_migrate_id$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "rdma_migrate_id",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }

    /** {@code int rdma_migrate_id(struct rdma_cm_id *, struct rdma_event_channel *)}: 0, or -1 with errno. */
    public static int rdma_migrate_id(MemorySegment errnoState, MemorySegment id, MemorySegment channel) {
        try {
            return (int) rdma_migrate_id$.HANDLE.invokeExact(errnoState, id, channel);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
