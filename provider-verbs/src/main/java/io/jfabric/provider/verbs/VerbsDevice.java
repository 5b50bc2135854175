package io.jfabric.provider.verbs;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;

/**
 * One RDMA device as librdmacm opened it ({@code rdma_get_devices}), with the limits the infos report
 * and the IP addresses that rdma_cm maps onto it. The context lives as long as the process, as
 * librdmacm's own device list does.
 *
 * @param context the {@code struct ibv_context *} rdma_cm uses for this device's cm_ids
 * @param atomicCap ibv_device_attr.atomic_cap: IBV_ATOMIC_NONE, or the scope of the device's RC atomics
 * @param maxSrq how many SRQs the device has (0: no fi_srx_context); maxSrqWr, maxSrqSge limit each
 */
record VerbsDevice(String name, MemorySegment context, long maxMrSize, int maxQp, int maxQpWr, int maxSge, int maxCq,
                   int maxCqe, int maxMr, int maxQpRdAtom, int maxQpInitRdAtom, int atomicCap, long maxMsgSize,
                   List<Address> addresses, int maxSrq, int maxSrqWr, int maxSrqSge) {

    /** Whether the device executes RC atomics (fetch-and-add, compare-and-swap on 8 bytes). */
    boolean hasAtomics() {
        return atomicCap != io.jfabric.provider.verbs.ffi.verbs_h.IBV_ATOMIC_NONE;
    }

    /** An IP address of a network interface that rdma_cm binds onto this device. */
    record Address(InetAddress ip, int prefixLength, String netdev) {
        /** libfabric's verbs fabric name: the subnet, e.g. "192.0.2.0/24". */
        String subnet() {
            byte[] b = ip.getAddress();
            for (int bit = prefixLength; bit < b.length * 8; bit++) {
                b[bit / 8] &= (byte) ~(0x80 >> (bit % 8));
            }
            try {
                String host = InetAddress.getByAddress(b).getHostAddress();
                return host + "/" + prefixLength;
            } catch (java.net.UnknownHostException e) {
                throw new AssertionError(e);
            }
        }
    }
}
