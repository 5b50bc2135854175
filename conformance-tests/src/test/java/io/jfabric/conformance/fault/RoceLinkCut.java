package io.jfabric.conformance.fault;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Two RoCE devices of this host on the two ends of one link (the Soft-RoCE VM's rxe0 on sr0 and rxe1 on sr1, a
 * veth pair), cut by netem dropping every packet both netdevs send. A namespace can't stand in for the far host
 * with verbs: rxe in the VM's 6.1 kernel serves RoCE only in the initial namespace. So the peer runs here,
 * bound to the second device's address, and this process to the first's. Needs root, tc with netem, and the
 * rdma tool.
 */
final class RoceLinkCut extends CutOffLink {
    private final List<String> netdevs;
    private boolean cut;

    private RoceLinkCut(List<String> netdevs, String hostAddr, String peerAddr) {
        super(hostAddr, peerAddr);
        this.netdevs = netdevs;
    }

    /** The first two active RoCE devices' netdevs with IPv4 addresses, or null with the reason in {@code why[0]}. */
    static RoceLinkCut find(String[] why) {
        try {
            if (!"0".equals(NetNs.run(List.of("id", "-u")).trim())) {
                why[0] = "cutting a link with tc needs root";
                return null;
            }
            List<String> devs = new ArrayList<>();
            List<String> addrs = new ArrayList<>();
            // "link rxe0/1 state ACTIVE physical_state LINK_UP netdev sr0"
            for (String line : NetNs.run(List.of("rdma", "link", "show")).split("\n")) {
                String[] f = line.trim().split("\\s+");
                int at = List.of(f).indexOf("netdev");
                if (!line.contains("state ACTIVE") || at < 0 || at + 1 >= f.length || devs.contains(f[at + 1])) {
                    continue;
                }
                String addr = ipv4Of(f[at + 1]);
                if (addr != null) {
                    devs.add(f[at + 1]);
                    addrs.add(addr);
                }
            }
            if (devs.size() < 2) {
                why[0] = "needs two active RoCE devices on netdevs with IPv4 addresses (the Soft-RoCE VM's rxe0 and"
                        + " rxe1); found " + devs;
                return null;
            }
            NetNs.run(List.of("tc", "qdisc", "show", "dev", devs.get(0)));
            return new RoceLinkCut(List.copyOf(devs.subList(0, 2)), addrs.get(0), addrs.get(1));
        } catch (IOException e) {
            why[0] = "the rdma or tc command is not usable: " + e.getMessage();
            return null;
        }
    }

    /** The first IPv4 address of {@code netdev}, or null. */
    private static String ipv4Of(String netdev) throws IOException {
        // "3: sr0    inet 192.0.2.1/24 brd 192.0.2.255 scope global sr0 ..."
        for (String line : NetNs.run(List.of("ip", "-o", "-4", "addr", "show", "dev", netdev)).split("\n")) {
            String[] f = line.trim().split("\\s+");
            int at = List.of(f).indexOf("inet");
            if (at >= 0 && at + 1 < f.length) {
                return f[at + 1].split("/")[0];
            }
        }
        return null;
    }

    @Override
    List<String> launcher() {
        return List.of();
    }

    @Override
    void link(boolean up) throws IOException {
        for (String dev : netdevs) {
            if (up) {
                NetNs.run(List.of("tc", "qdisc", "del", "dev", dev, "root"));
            } else {
                NetNs.run(List.of("tc", "qdisc", "replace", "dev", dev, "root", "netem", "loss", "100%"));
            }
        }
        cut = !up;
    }

    @Override
    public void close() {
        if (cut) {
            try {
                link(true);
            } catch (IOException e) {
                System.err.println("[fault] restoring " + netdevs + " failed: " + e.getMessage());
            }
        }
    }

    @Override
    public String toString() {
        return "RoCE link " + netdevs + ", " + hostAddr + " <-> " + peerAddr;
    }
}
