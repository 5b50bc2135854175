package io.jfabric.provider.verbs;

import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.provider.verbs.ffi.NativeSockaddr;
import io.jfabric.provider.verbs.ffi.generated.ibv_context;
import io.jfabric.provider.verbs.ffi.generated.ibv_device_attr;
import io.jfabric.provider.verbs.ffi.generated.ibv_port_attr;
import io.jfabric.provider.verbs.ffi.generated.rdma_cm_id;
import io.jfabric.provider.verbs.ffi.rdma_cma_h;
import io.jfabric.provider.verbs.ffi.verbs_h;
import io.jfabric.util.Sockaddr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Finds the RDMA devices once per process: whether libibverbs and librdmacm load, whether
 * {@code ibv_get_device_list} returns any device, and which IP addresses rdma_cm binds onto each one
 * (found, as libfabric's verbs does, by binding a cm_id to every interface address). Nothing here
 * throws: a machine without RDMA gets a reason instead.
 */
final class DeviceScan {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger("verbs");

    /** The outcome: devices, or why there are none. */
    record Result(List<VerbsDevice> devices, String unavailableReason) {
    }

    private DeviceScan() {
    }

    private static final class Holder {
        static final Result RESULT = scanSafely();
    }

    static Result result() {
        return Holder.RESULT;
    }

    private static Result scanSafely() {
        try {
            return scan();
        } catch (RuntimeException | LinkageError e) {
            LOG.log(System.Logger.Level.DEBUG, "verbs device scan failed", e);
            return new Result(List.of(), "probing RDMA devices failed: " + e);
        }
    }

    private static Result scan() {
        String problem = NativeLibrary.loadProblem(NativeLibrary.IBVERBS);
        if (problem == null) {
            problem = NativeLibrary.loadProblem(NativeLibrary.RDMACM);
        }
        if (problem != null) {
            return new Result(List.of(), problem);
        }
        forkInitIfAsked();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment num = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment list = verbs_h.ibv_get_device_list(num);
            if (Native.isNull(list)) {
                return new Result(List.of(), "ibv_get_device_list returned NULL: the kernel has no RDMA support "
                        + "(no /sys/class/infiniband_verbs; load an RDMA driver such as rdma_rxe or mlx5_ib)");
            }
            int n = num.get(ValueLayout.JAVA_INT, 0);
            verbs_h.ibv_free_device_list(list);
            if (n == 0) {
                return new Result(List.of(), "ibv_get_device_list found no RDMA device (no RDMA NIC, or its "
                        + "driver is not loaded; for Soft-RoCE: rdma link add rxe0 type rxe netdev <if>)");
            }
            MemorySegment err = NativeLibrary.allocateCaptureState(arena);
            MemorySegment ctxs = rdma_cma_h.rdma_get_devices(err, num);
            if (Native.isNull(ctxs)) {
                return new Result(List.of(), "rdma_get_devices failed (errno " + NativeLibrary.errno(err)
                        + "): librdmacm cannot open the RDMA devices (is rdma_ucm loaded and /dev/infiniband/rdma_cm accessible?)");
            }
            int count = num.get(ValueLayout.JAVA_INT, 0);
            MemorySegment array = ctxs.reinterpret(8L * (count + 1));
            List<MemorySegment> contexts = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                contexts.add(array.getAtIndex(ValueLayout.ADDRESS, i));
            }
            // the device list stays allocated: its contexts are what rdma_cm hands to cm_ids
            List<VerbsDevice> devices = new ArrayList<>();
            List<String> withoutIp = new ArrayList<>();
            for (MemorySegment ctx : contexts) {
                VerbsDevice d = describe(ctx, arena);
                if (d == null) {
                    continue;
                }
                if (d.addresses().isEmpty()) {
                    withoutIp.add(d.name());
                } else {
                    devices.add(d);
                }
            }
            if (devices.isEmpty()) {
                return new Result(List.of(), "RDMA devices " + withoutIp + " have no IP address that rdma_cm "
                        + "can bind (give their network interfaces an address)");
            }
            return new Result(List.copyOf(devices), null);
        }
    }

    private static void forkInitIfAsked() {
        if (System.getenv("RDMAV_FORK_SAFE") != null || System.getenv("IBV_FORK_SAFE") != null) {
            int rc = verbs_h.ibv_fork_init();
            if (rc != 0) {
                LOG.log(System.Logger.Level.WARNING, "ibv_fork_init failed: " + Native.strerror(rc));
            }
        }
    }

    private static VerbsDevice describe(MemorySegment ctxPtr, Arena arena) {
        MemorySegment ctx = ibv_context.reinterpret(ctxPtr);
        String name = NativeLibrary.string(verbs_h.ibv_get_device_name(ibv_context.device(ctx)));
        MemorySegment attr = ibv_device_attr.allocate(arena);
        int rc = verbs_h.ibv_query_device(ctx, attr);
        if (rc != 0) {
            LOG.log(System.Logger.Level.WARNING, "ibv_query_device(" + name + ") failed: " + Native.strerror(rc));
            return null;
        }
        MemorySegment port = ibv_port_attr.allocate(arena);
        long maxMsg = 1L << 30;
        if (verbs_h.ibv_query_port(ctx, (byte) 1, port) == 0) {
            maxMsg = Integer.toUnsignedLong(ibv_port_attr.max_msg_sz(port));
        }
        return new VerbsDevice(name, ctxPtr, ibv_device_attr.max_mr_size(attr), ibv_device_attr.max_qp(attr),
                ibv_device_attr.max_qp_wr(attr), ibv_device_attr.max_sge(attr), ibv_device_attr.max_cq(attr),
                ibv_device_attr.max_cqe(attr), ibv_device_attr.max_mr(attr), ibv_device_attr.max_qp_rd_atom(attr),
                ibv_device_attr.max_qp_init_rd_atom(attr), ibv_device_attr.atomic_cap(attr), maxMsg, addressesOf(ctxPtr),
                ibv_device_attr.max_srq(attr), ibv_device_attr.max_srq_wr(attr), ibv_device_attr.max_srq_sge(attr));
    }

    /** Interface addresses whose rdma_bind_addr lands on {@code ctx}. */
    private static List<VerbsDevice.Address> addressesOf(MemorySegment ctx) {
        List<VerbsDevice.Address> out = new ArrayList<>();
        List<NetworkInterface> ifs;
        try {
            ifs = Collections.list(NetworkInterface.getNetworkInterfaces());
        } catch (SocketException e) {
            return out;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment err = NativeLibrary.allocateCaptureState(arena);
            MemorySegment idOut = arena.allocate(ValueLayout.ADDRESS);
            for (NetworkInterface nif : ifs) {
                for (InterfaceAddress ia : nif.getInterfaceAddresses()) {
                    if (ia.getAddress().isLoopbackAddress() || ia.getAddress().isLinkLocalAddress()) {
                        continue;
                    }
                    if (rdma_cma_h.rdma_create_id(err, MemorySegment.NULL, idOut, MemorySegment.NULL,
                            rdma_cma_h.RDMA_PS_TCP) != 0) {
                        continue;
                    }
                    MemorySegment id = rdma_cm_id.reinterpret(idOut.get(ValueLayout.ADDRESS, 0));
                    try {
                        MemorySegment sa = NativeSockaddr.toNative(Sockaddr.of(ia.getAddress(), 0), arena);
                        if (rdma_cma_h.rdma_bind_addr(err, id, sa) == 0
                                && rdma_cm_id.verbs(id).address() == ctx.address()) {
                            out.add(new VerbsDevice.Address(ia.getAddress(), ia.getNetworkPrefixLength(), nif.getName()));
                        }
                    } finally {
                        rdma_cma_h.rdma_destroy_id(err, id);
                    }
                }
            }
        }
        return out;
    }
}
