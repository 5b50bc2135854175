package io.jfabric.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile shm addresses: malformed names, path tricks, and names that point at files which are not a live
 * jfabric region of this user (a symlink, a file of the wrong size, garbage of the right size, a file
 * others can write, a file of another user, a mutated copy of a genuine region). Every insert must come
 * back as FI_ADDR_NOTAVAIL with a positive errno under FI_SYNC_ERR, never an exception, and leave the
 * file it looked at byte-for-byte unchanged.
 */
@Timeout(30)
class ShmHostileAddressTest {
    private static final Path DIR = Path.of("/dev/shm");

    private Fabric fabric;
    private Domain domain;
    private AddressVector av;
    private CompletionQueue cq;
    private Endpoint ep;
    private final List<Path> created = new ArrayList<>();
    private final String tag = "jfabric-shm-fuzz-" + ProcessHandle.current().pid() + "-";

    @BeforeEach
    void open() {
        FabricInfo hints = FabricInfo.hints();
        hints.caps = Caps.MSG | Caps.TAGGED | Caps.RMA;
        hints.epAttr.type = EndpointType.RDM;
        hints.fabricAttr.provName = "shm";
        FabricInfo info = Fabrics.getInfo(hints).getFirst();
        fabric = Fabrics.openFabric(info);
        domain = fabric.openDomain(info);
        av = domain.openAv(AvAttr.of(AvType.TABLE));
        cq = domain.openCq(CqAttr.of(CqFormat.TAGGED, 64));
        ep = domain.openEndpoint(info);
        ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
        ep.bind(av);
        ep.enable();
    }

    @AfterEach
    void close() throws IOException {
        ep.close();
        cq.close();
        av.close();
        domain.close();
        fabric.close();
        for (Path p : created) {
            Files.deleteIfExists(p);
        }
    }

    @Test
    void malformedAddressesAreNotAvailable() {
        byte[][] bad = {
            null,
            new byte[0],
            "garbage".getBytes(StandardCharsets.US_ASCII),
            "fi_shm://".getBytes(StandardCharsets.US_ASCII),
            "fi_shm://../../etc/passwd".getBytes(StandardCharsets.US_ASCII),
            "fi_shm://jfabric-shm-/../../etc/passwd".getBytes(StandardCharsets.US_ASCII),
            ("fi_shm://" + tag + "does-not-exist").getBytes(StandardCharsets.US_ASCII),
            ("fi_shm://jfabric-shm-" + "x".repeat(5000)).getBytes(StandardCharsets.US_ASCII),
            "fi_shm://jfabric-shm-\u00e9\u0001\n".getBytes(StandardCharsets.ISO_8859_1),
            {(byte) 0xff, (byte) 0xfe, 0, 0, 1},
        };
        for (byte[] a : bad) {
            assertRefused(a, null);
        }
        SplittableRandom r = new SplittableRandom(5);
        byte[] genuine = ep.getName();
        for (int i = 0; i < 500; i++) {
            byte[] a = Mutator.mutate(genuine, r.nextLong());
            int[] errs = new int[1];
            long[] out = new long[1];
            int ok = av.insert(new byte[][] {a}, out, Fabrics.SYNC_ERR, errs); // must not throw
            assertTrue(ok == 1 ? out[0] != Fabrics.ADDR_NOTAVAIL && errs[0] == 0
                    : out[0] == Fabrics.ADDR_NOTAVAIL && errs[0] > 0, "mutated name " + Mutator.hex(a));
        }
    }

    @Test
    void symlinkToAGenuineRegionIsRefused() throws IOException {
        Path genuine = DIR.resolve(name(ep.getName()));
        assertTrue(Files.isRegularFile(genuine), "the endpoint's region should be " + genuine);
        Path link = track(DIR.resolve(tag + "symlink"));
        Files.createSymbolicLink(link, genuine);
        assertRefused(address(link), null);
        Path toPasswd = track(DIR.resolve(tag + "symlink-passwd"));
        Files.createSymbolicLink(toPasswd, Path.of("/etc/passwd"));
        byte[] passwd = Files.readAllBytes(Path.of("/etc/passwd"));
        assertRefused(address(toPasswd), null);
        assertArrayEquals(passwd, Files.readAllBytes(Path.of("/etc/passwd")), "target of the symlink was modified");
    }

    @Test
    void filesOfTheWrongSizeOrContentAreRefusedAndUntouched() throws IOException {
        byte[] region = Files.readAllBytes(DIR.resolve(name(ep.getName())));
        SplittableRandom r = new SplittableRandom(11);
        byte[] garbage = new byte[region.length];
        r.nextBytes(garbage);
        assertRefused(address(file("empty", new byte[0], "rw-------")), new byte[0]);
        assertRefused(address(file("tiny", new byte[100], "rw-------")), new byte[100]);
        assertRefused(address(file("garbage", garbage, "rw-------")), garbage);
        byte[] truncated = java.util.Arrays.copyOf(region, region.length / 2);
        assertRefused(address(file("truncated-copy", truncated, "rw-------")), truncated);
        byte[] copy = region.clone();
        assertRefused(address(file("world-writable", copy, "rw-rw-rw-")), copy);
        // header mutations of a genuine region copy: refused, or (if the mutation missed every checked
        // field) accepted; either way no exception escapes and a refused file is left as it was
        int refused = 0;
        for (int i = 0; i < 40; i++) {
            byte[] m = region.clone();
            int flips = 1 + r.nextInt(4);
            for (int k = 0; k < flips; k++) {
                m[r.nextInt(Math.min(m.length, 256))] ^= (byte) (1 << r.nextInt(8));
            }
            Path p = file("mutated-" + i, m, "rw-------");
            int[] errs = new int[1];
            long[] out = new long[1];
            if (av.insert(new byte[][] {address(p)}, out, Fabrics.SYNC_ERR, errs) == 0) {
                refused++;
                assertTrue(errs[0] > 0 && out[0] == Fabrics.ADDR_NOTAVAIL);
                assertArrayEquals(m, Files.readAllBytes(p), "refused region " + p + " was written to");
            }
        }
        assertTrue(refused > 0, "no mutated region header was refused");
    }

    @Test
    void fileOfAnotherUserIsRefused() throws IOException {
        byte[] region = Files.readAllBytes(DIR.resolve(name(ep.getName())));
        Path p = file("other-user", region, "rw-------");
        try {
            Files.setAttribute(p, "unix:uid", 65534);
        } catch (IOException | UnsupportedOperationException e) {
            // only root can give a file to another user; CI runs as root, so this case runs there
            org.junit.jupiter.api.Assumptions.abort("needs root: giving the region file to uid 65534 (chown) failed: "
                    + e);
        }
        assertRefused(address(p), region);
    }

    private void assertRefused(byte[] addr, byte[] expectedContent) {
        int[] errs = new int[1];
        long[] out = {123};
        int ok = av.insert(new byte[][] {addr}, out, Fabrics.SYNC_ERR, errs);
        String what = addr == null ? "null" : new String(addr, StandardCharsets.ISO_8859_1);
        assertEquals(0, ok, "accepted " + what);
        assertEquals(Fabrics.ADDR_NOTAVAIL, out[0], what);
        assertTrue(errs[0] > 0, "no errno for " + what);
        try {
            av.insert(addr);
            throw new AssertionError("single insert accepted " + what);
        } catch (io.jfabric.FabricException e) {
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), "no message for " + what);
        }
        if (expectedContent != null && addr != null) {
            try {
                assertArrayEquals(expectedContent, Files.readAllBytes(DIR.resolve(name(addr))), "refused file modified");
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
    }

    private Path file(String suffix, byte[] content, String mode) throws IOException {
        Path p = track(DIR.resolve(tag + suffix));
        Files.write(p, content);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
        return p;
    }

    private Path track(Path p) {
        created.add(p);
        return p;
    }

    private static byte[] address(Path p) {
        return ("fi_shm://" + p.getFileName()).getBytes(StandardCharsets.US_ASCII);
    }

    private static String name(byte[] addr) {
        int len = addr.length;
        while (len > 0 && addr[len - 1] == 0) {
            len--;
        }
        return new String(addr, 0, len, StandardCharsets.US_ASCII).substring("fi_shm://".length());
    }
}
