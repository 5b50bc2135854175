package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.AddressVector;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.MrMode;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * A process killed with its native shm endpoint open leaves its region in /dev/shm under
 * "pid:uid:index". When a later process is given that pid, libfabric 1.17 takes the leftover for a
 * live one (the pid it records is the new process's own) and fails the first fi_enable with FI_EBUSY;
 * CI hit this on the README example once pids wrapped. The endpoint enables anyway, and the first native shm
 * fabric of a process removes dead processes' leftovers.
 */
class StaleShmRegionTest {

    @Test
    void leftoverRegionNamingThisProcessDoesNotFailEnable() throws Exception {
        Hints h = Hints.create().provider("libfabric:shm").caps(Caps.MSG).epType(EndpointType.RDM)
                .mrMode(MrMode.LOCAL | MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY);
        List<FabricInfo> infos = new LibfabricProvider().getInfo(Fabrics.API_VERSION, null, null, 0, h.build());
        assertFalse(infos.isEmpty(), "native shm offers an RDM info");
        FabricInfo info = infos.get(0);
        Path leftover = null;
        try (Fabric fabric = new LibfabricProvider().openFabric(info);
                Domain domain = fabric.openDomain(info);
                AddressVector av = domain.openAv(AvAttr.of(AvType.UNSPEC));
                CompletionQueue cq = domain.openCq(CqAttr.of(CqFormat.TAGGED, 16))) {
            try (Endpoint first = open(domain, info, cq, av)) {
                String name = nameOf(first);
                String[] parts = name.substring(name.lastIndexOf('/') + 1).split(":");
                assertEquals(3, parts.length, "libfabric shm names its region pid:uid:index, got " + name);
                assertEquals(ProcessHandle.current().pid(), Long.parseLong(parts[0]), name);
                // libfabric numbers endpoints in order, so the next one takes the next index
                leftover = Path.of("/dev/shm", parts[0] + ":" + parts[1] + ":" + (Integer.parseInt(parts[2]) + 1));
                Files.write(leftover, leftoverHeader((int) ProcessHandle.current().pid()));
                try (Endpoint second = open(domain, info, cq, av)) {
                    String secondName = nameOf(second);
                    assertTrue(secondName.endsWith(leftover.getFileName().toString()),
                            "the second endpoint took the leftover's name: " + secondName);
                    assertTrue(Files.size(leftover) > 4096, "the leftover was replaced by the endpoint's own region");
                }
            }
        } finally {
            if (leftover != null) {
                Files.deleteIfExists(leftover);
            }
        }
    }

    @Test
    void sweepRemovesOnlyRegionsOfDeadProcesses() throws Exception {
        Path dir = Files.createTempDirectory("shm-leftovers");
        int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        int me = (int) ProcessHandle.current().pid();
        int dead = Integer.MAX_VALUE - 1; // above any pid_max, so no process has it
        try {
            Path leftover = write(dir, dead + ":" + uid + ":7", leftoverHeader(dead));
            Path live = write(dir, me + ":" + uid + ":99999", leftoverHeader(me));
            byte[] otherVersion = leftoverHeader(dead);
            otherVersion[0] = 3;
            Path older = write(dir, dead + ":" + uid + ":8", otherVersion);
            Path mismatch = write(dir, (dead - 1) + ":" + uid + ":9", leftoverHeader(dead));
            Path otherUser = write(dir, dead + ":" + (uid + 1) + ":10", leftoverHeader(dead));
            Path beingMade = write(dir, dead + ":" + uid + ":11", new byte[4]);
            Path unrelated = write(dir, "not-a-region", leftoverHeader(dead));

            assertEquals(1, ShmLeftovers.sweep(dir));
            assertFalse(Files.exists(leftover), "a dead process's region is removed");
            for (Path kept : List.of(live, older, mismatch, otherUser, beingMade, unrelated)) {
                assertTrue(Files.exists(kept), kept.getFileName() + " is left alone");
            }
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(dir);
        }
    }

    private static Path write(Path dir, String name, byte[] content) throws Exception {
        return Files.write(dir.resolve(name), content);
    }

    private static Endpoint open(Domain domain, FabricInfo info, CompletionQueue cq, AddressVector av) {
        Endpoint ep = domain.openEndpoint(info);
        ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
        ep.bind(av);
        ep.enable();
        return ep;
    }

    private static String nameOf(Endpoint ep) {
        String s = new String(ep.getName(), StandardCharsets.US_ASCII);
        int nul = s.indexOf('\0');
        return nul < 0 ? s : s.substring(0, nul);
    }

    /** A 1.17 region header (version 4 at byte 0, the owner's pid at byte 4) padded to a page. */
    private static byte[] leftoverHeader(int pid) {
        ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.nativeOrder());
        b.put(0, (byte) 4);
        b.putInt(4, pid);
        return b.array();
    }
}
