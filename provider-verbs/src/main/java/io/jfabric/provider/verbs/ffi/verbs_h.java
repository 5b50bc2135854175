package io.jfabric.provider.verbs.ffi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code <infiniband/verbs.h>} (libibverbs, rdma-core 44) in jextract's shape: the constants and
 * downcalls provider-verbs uses. Each function's handle sits in its own holder class, as jextract
 * generates them, so it is linked on first use. {@code ibv_poll_cq}, {@code ibv_req_notify_cq},
 * {@code ibv_post_send}, {@code ibv_post_recv} and {@code ibv_post_srq_recv} are static inline in C; their forms here take the
 * function pointer from {@code ibv_context->ops} (read once per object by the caller) and, like the C
 * versions, return the error number instead of setting errno.
 */
@SuppressWarnings({"unused", "checkstyle:ConstantName"})
public final class verbs_h {
    private verbs_h() {
    }

    static final SymbolLookup LIB = NativeLibrary.lookup(NativeLibrary.IBVERBS);

    // enum ibv_wc_status
    public static final int IBV_WC_SUCCESS = 0;
    public static final int IBV_WC_LOC_LEN_ERR = 1;
    public static final int IBV_WC_WR_FLUSH_ERR = 5;
    public static final int IBV_WC_GENERAL_ERR = 21;
    // enum ibv_wc_opcode
    public static final int IBV_WC_SEND = 0;
    public static final int IBV_WC_RDMA_WRITE = 1;
    public static final int IBV_WC_RDMA_READ = 2;
    public static final int IBV_WC_RECV = 128;
    public static final int IBV_WC_RECV_RDMA_WITH_IMM = 129;
    // enum ibv_wc_flags
    public static final int IBV_WC_WITH_IMM = 2;
    // enum ibv_wr_opcode
    public static final int IBV_WR_RDMA_WRITE = 0;
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    public static final int IBV_WR_SEND = 2;
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    public static final int IBV_WR_RDMA_READ = 4;
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    /** ibv_device_attr.atomic_cap: the device has no RC atomics. */
    public static final int IBV_ATOMIC_NONE = 0;
    // enum ibv_send_flags
    public static final int IBV_SEND_FENCE = 1;
    public static final int IBV_SEND_SIGNALED = 2;
    public static final int IBV_SEND_SOLICITED = 4;
    public static final int IBV_SEND_INLINE = 8;
    // enum ibv_access_flags
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;
    public static final int IBV_ACCESS_REMOTE_WRITE = 2;
    public static final int IBV_ACCESS_REMOTE_READ = 4;
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 8;
    // enum ibv_qp_type, ibv_qp_state, ibv_port_state, link layers
    public static final int IBV_QPT_RC = 2;
    public static final int IBV_QPS_RTS = 3;
    public static final int IBV_QPS_ERR = 6;
    // enum ibv_qp_attr_mask
    public static final int IBV_QP_STATE = 1;
    public static final int IBV_QP_TIMEOUT = 1 << 9;
    public static final int IBV_QP_RETRY_CNT = 1 << 10;
    public static final int IBV_QP_RNR_RETRY = 1 << 11;
    public static final int IBV_QP_MIN_RNR_TIMER = 1 << 15;
    public static final int IBV_PORT_ACTIVE = 4;
    public static final int IBV_LINK_LAYER_INFINIBAND = 1;
    public static final int IBV_LINK_LAYER_ETHERNET = 2;
    // enum ibv_event_type
    public static final int IBV_EVENT_CQ_ERR = 0;
    public static final int IBV_EVENT_QP_FATAL = 1;
    public static final int IBV_EVENT_QP_REQ_ERR = 2;
    public static final int IBV_EVENT_QP_ACCESS_ERR = 3;
    public static final int IBV_EVENT_DEVICE_FATAL = 8;
    public static final int IBV_EVENT_PORT_ACTIVE = 9;
    public static final int IBV_EVENT_PORT_ERR = 10;

    private static final class ibv_get_device_list$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_get_device_list",
                FunctionDescriptor.of(ADDRESS, ADDRESS));
    }

    /** {@code struct ibv_device **ibv_get_device_list(int *num_devices)}. */
    public static MemorySegment ibv_get_device_list(MemorySegment numDevices) {
        try {
            return (MemorySegment) ibv_get_device_list$.HANDLE.invokeExact(numDevices);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_free_device_list$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_free_device_list",
                FunctionDescriptor.ofVoid(ADDRESS));
    }

    /** {@code void ibv_free_device_list(struct ibv_device **list)}. */
    public static void ibv_free_device_list(MemorySegment list) {
        try {
            ibv_free_device_list$.HANDLE.invokeExact(list);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_get_device_name$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_get_device_name",
                FunctionDescriptor.of(ADDRESS, ADDRESS));
    }

    /** {@code const char *ibv_get_device_name(struct ibv_device *device)}. */
    public static MemorySegment ibv_get_device_name(MemorySegment device) {
        try {
            return (MemorySegment) ibv_get_device_name$.HANDLE.invokeExact(device);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_query_device$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_query_device",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }

    /** {@code int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)}: 0 or an errno. */
    public static int ibv_query_device(MemorySegment context, MemorySegment deviceAttr) {
        try {
            return (int) ibv_query_device$.HANDLE.invokeExact(context, deviceAttr);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_query_port$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_query_port",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));
    }

    /**
     * {@code int ibv_query_port(struct ibv_context *, uint8_t port_num, struct ibv_port_attr *)}: the exported
     * symbol the header's inline wrapper falls back to; pass a zeroed struct. 0 or an errno.
     */
    public static int ibv_query_port(MemorySegment context, byte portNum, MemorySegment portAttr) {
        try {
            return (int) ibv_query_port$.HANDLE.invokeExact(context, portNum, portAttr);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_alloc_pd$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_alloc_pd",
                FunctionDescriptor.of(ADDRESS, ADDRESS));
    }

    /** {@code struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)}: NULL on failure (errno set). */
    public static MemorySegment ibv_alloc_pd(MemorySegment context) {
        try {
            return (MemorySegment) ibv_alloc_pd$.HANDLE.invokeExact(context);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_dealloc_pd$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_dealloc_pd",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /** {@code int ibv_dealloc_pd(struct ibv_pd *pd)}: 0 or an errno. */
    public static int ibv_dealloc_pd(MemorySegment pd) {
        try {
            return (int) ibv_dealloc_pd$.HANDLE.invokeExact(pd);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_reg_mr$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "ibv_reg_mr",
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
    }

    /**
     * {@code struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)} (the
     * exported function; the header's macro adds IBV_ACCESS_OPTIONAL handling we don't use). NULL on
     * failure with errno in {@code errnoState}: a control-path call, so the capture is affordable.
     */
    public static MemorySegment ibv_reg_mr(MemorySegment errnoState, MemorySegment pd, MemorySegment addr,
                                           long length, int access) {
        try {
            return (MemorySegment) ibv_reg_mr$.HANDLE.invokeExact(errnoState, pd, addr, length, access);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_dereg_mr$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_dereg_mr",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /** {@code int ibv_dereg_mr(struct ibv_mr *mr)}: 0 or an errno. */
    public static int ibv_dereg_mr(MemorySegment mr) {
        try {
            return (int) ibv_dereg_mr$.HANDLE.invokeExact(mr);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_create_comp_channel$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "ibv_create_comp_channel",
                FunctionDescriptor.of(ADDRESS, ADDRESS));
    }

    /** {@code struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *)}: NULL with errno on failure. */
    public static MemorySegment ibv_create_comp_channel(MemorySegment errnoState, MemorySegment context) {
        try {
            return (MemorySegment) ibv_create_comp_channel$.HANDLE.invokeExact(errnoState, context);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_destroy_comp_channel$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_destroy_comp_channel",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /** {@code int ibv_destroy_comp_channel(struct ibv_comp_channel *)}: 0 or an errno. */
    public static int ibv_destroy_comp_channel(MemorySegment channel) {
        try {
            return (int) ibv_destroy_comp_channel$.HANDLE.invokeExact(channel);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_create_cq$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "ibv_create_cq",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    }

    /**
     * {@code struct ibv_cq *ibv_create_cq(struct ibv_context *, int cqe, void *cq_context,
     * struct ibv_comp_channel *, int comp_vector)}: NULL with errno on failure.
     */
    public static MemorySegment ibv_create_cq(MemorySegment errnoState, MemorySegment context, int cqe,
                                              MemorySegment cqContext, MemorySegment channel, int compVector) {
        try {
            return (MemorySegment) ibv_create_cq$.HANDLE.invokeExact(errnoState, context, cqe, cqContext, channel,
                    compVector);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_create_srq$ {
        static final MethodHandle HANDLE = NativeLibrary.downcallErrno(LIB, "ibv_create_srq",
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    }

    /** {@code struct ibv_srq *ibv_create_srq(struct ibv_pd *, struct ibv_srq_init_attr *)}: NULL with errno. */
    public static MemorySegment ibv_create_srq(MemorySegment errnoState, MemorySegment pd, MemorySegment initAttr) {
        try {
            return (MemorySegment) ibv_create_srq$.HANDLE.invokeExact(errnoState, pd, initAttr);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_destroy_srq$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_destroy_srq",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /** {@code int ibv_destroy_srq(struct ibv_srq *)}: 0 or an errno (EBUSY while a QP still uses it). */
    public static int ibv_destroy_srq(MemorySegment srq) {
        try {
            return (int) ibv_destroy_srq$.HANDLE.invokeExact(srq);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_destroy_cq$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_destroy_cq",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /** {@code int ibv_destroy_cq(struct ibv_cq *)}: 0 or an errno. */
    public static int ibv_destroy_cq(MemorySegment cq) {
        try {
            return (int) ibv_destroy_cq$.HANDLE.invokeExact(cq);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_get_cq_event$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_get_cq_event",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    }

    /**
     * {@code int ibv_get_cq_event(struct ibv_comp_channel *, struct ibv_cq **cq, void **cq_context)}: blocks
     * until the channel's fd is readable, so callers poll(2) the fd first. 0, or -1 on failure.
     */
    public static int ibv_get_cq_event(MemorySegment channel, MemorySegment cqOut, MemorySegment cqContextOut) {
        try {
            return (int) ibv_get_cq_event$.HANDLE.invokeExact(channel, cqOut, cqContextOut);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_ack_cq_events$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_ack_cq_events",
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
    }

    /** {@code void ibv_ack_cq_events(struct ibv_cq *, unsigned int nevents)}. */
    public static void ibv_ack_cq_events(MemorySegment cq, int nevents) {
        try {
            ibv_ack_cq_events$.HANDLE.invokeExact(cq, nevents);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_wc_status_str$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_wc_status_str",
                FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    /** {@code const char *ibv_wc_status_str(enum ibv_wc_status)}. */
    public static MemorySegment ibv_wc_status_str(int status) {
        try {
            return (MemorySegment) ibv_wc_status_str$.HANDLE.invokeExact(status);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_fork_init$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_fork_init",
                FunctionDescriptor.of(JAVA_INT));
    }

    /** {@code int ibv_fork_init(void)}: 0 or an errno. */
    public static int ibv_fork_init() {
        try {
            return (int) ibv_fork_init$.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_get_async_event$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_get_async_event",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }

    /** {@code int ibv_get_async_event(struct ibv_context *, struct ibv_async_event *)}: blocks; poll async_fd first. */
    public static int ibv_get_async_event(MemorySegment context, MemorySegment event) {
        try {
            return (int) ibv_get_async_event$.HANDLE.invokeExact(context, event);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_ack_async_event$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_ack_async_event",
                FunctionDescriptor.ofVoid(ADDRESS));
    }

    /** {@code void ibv_ack_async_event(struct ibv_async_event *)}. */
    public static void ibv_ack_async_event(MemorySegment event) {
        try {
            ibv_ack_async_event$.HANDLE.invokeExact(event);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_event_type_str$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_event_type_str",
                FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    /** {@code const char *ibv_event_type_str(enum ibv_event_type)}. */
    public static MemorySegment ibv_event_type_str(int eventType) {
        try {
            return (MemorySegment) ibv_event_type_str$.HANDLE.invokeExact(eventType);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_modify_qp$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_modify_qp",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    }

    /** {@code int ibv_modify_qp(struct ibv_qp *, struct ibv_qp_attr *, int attr_mask)}: 0 or an errno. */
    public static int ibv_modify_qp(MemorySegment qp, MemorySegment attr, int attrMask) {
        try {
            return (int) ibv_modify_qp$.HANDLE.invokeExact(qp, attr, attrMask);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static final class ibv_query_qp$ {
        static final MethodHandle HANDLE = NativeLibrary.downcall(LIB, "ibv_query_qp",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
    }

    /**
     * {@code int ibv_query_qp(struct ibv_qp *, struct ibv_qp_attr *, int attr_mask, struct ibv_qp_init_attr *)}:
     * 0 or an errno.
     */
    public static int ibv_query_qp(MemorySegment qp, MemorySegment attr, int attrMask, MemorySegment initAttr) {
        try {
            return (int) ibv_query_qp$.HANDLE.invokeExact(qp, attr, attrMask, initAttr);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    // ---- static inline in verbs.h: dispatch through ibv_context->ops ------------------------------

    // the data-path calls take their pointers as 64-bit words: a MemorySegment argument makes the linker
    // acquire and release its arena's scope around the call, two atomics per argument from a shared arena
    private static final MethodHandle POLL_CQ = NativeLibrary.pointerCall(
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG));
    private static final MethodHandle REQ_NOTIFY_CQ = NativeLibrary.pointerCall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle POST_SEND = NativeLibrary.pointerCall(
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle POST_RECV = NativeLibrary.pointerCall(
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));

    /** {@code ibv_poll_cq(cq, num_entries, wc)} through {@code ops.poll_cq}: entries read (≥ 0) or negative on error. */
    public static int ibv_poll_cq(MemorySegment pollCqFn, long cq, int numEntries, long wc) {
        try {
            return (int) POLL_CQ.invokeExact(pollCqFn, cq, numEntries, wc);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code ibv_req_notify_cq(cq, solicited_only)} through {@code ops.req_notify_cq}: 0 or an errno. */
    public static int ibv_req_notify_cq(MemorySegment reqNotifyFn, MemorySegment cq, int solicitedOnly) {
        try {
            return (int) REQ_NOTIFY_CQ.invokeExact(reqNotifyFn, cq, solicitedOnly);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code ibv_post_send(qp, wr, bad_wr)} through {@code ops.post_send}: 0 or an errno (errno is not set). */
    public static int ibv_post_send(MemorySegment postSendFn, long qp, long wr, long badWr) {
        try {
            return (int) POST_SEND.invokeExact(postSendFn, qp, wr, badWr);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code ibv_post_recv(qp, wr, bad_wr)} through {@code ops.post_recv}: 0 or an errno (errno is not set). */
    public static int ibv_post_recv(MemorySegment postRecvFn, long qp, long wr, long badWr) {
        try {
            return (int) POST_RECV.invokeExact(postRecvFn, qp, wr, badWr);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /**
     * {@code ibv_post_srq_recv(srq, wr, bad_wr)} through {@code ops.post_srq_recv}, whose C type is post_recv's with
     * the SRQ in the QP's place: 0 or an errno (errno is not set).
     */
    public static int ibv_post_srq_recv(MemorySegment postSrqRecvFn, long srq, long wr, long badWr) {
        return ibv_post_recv(postSrqRecvFn, srq, wr, badWr);
    }
}
