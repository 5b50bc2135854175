package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.RegionLayout;

import io.jfabric.Errno;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShmRegionTest {

    static final Path DIR = ShmRegion.DEFAULT_DIRECTORY;
    static final RegionLayout SMALL = new RegionLayout(1 << 14, 4096, 8);

    @Test
    void createdRegionIsOwnerOnlyAndUnlinkedOnClose() throws Exception {
        String name = ShmRegion.newName();
        Path path;
        try (ShmRegion r = ShmRegion.create(DIR, name, SMALL)) {
            path = r.path();
            assertTrue(Files.exists(path));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(path)));
            assertEquals(SMALL.regionLength(), Files.size(path));
            assertEquals(ProcessHandle.current().pid(), r.ownerPid());
            assertTrue(r.ownerAlive());
        }
        assertFalse(Files.exists(path));
    }

    @Test
    void peerOpenSeesTheSameMemory() {
        String name = ShmRegion.newName();
        try (ShmRegion owner = ShmRegion.create(DIR, name, SMALL);
             ShmRegion peer = ShmRegion.open(DIR, name)) {
            assertFalse(peer.isOwner());
            assertEquals(owner.layout(), peer.layout());
            assertEquals(owner.segment().address(), peer.ownerBaseAddress());
            long at = peer.ring().tryClaim(5, 8);
            peer.ring().buffer().set(ValueLayout.JAVA_LONG, at, 0xfeedL);
            peer.ring().commit(at);
            long[] got = new long[2];
            owner.ring().read((type, buf, off, len) -> {
                got[0] = type;
                got[1] = buf.get(ValueLayout.JAVA_LONG, off);
                return true;
            }, 1);
            assertEquals(5, got[0]);
            assertEquals(0xfeedL, got[1]);
        }
    }

    @Test
    void creatingAnExistingNameFailsWithEexist() {
        String name = ShmRegion.newName();
        try (ShmRegion r = ShmRegion.create(DIR, name, SMALL)) {
            ShmException e = assertThrows(ShmException.class, () -> ShmRegion.create(DIR, name, SMALL));
            assertEquals(Errno.EEXIST, e.errno());
            assertTrue(Files.exists(r.path()), "the existing region must survive");
        }
    }

    @Test
    void missingPeerIsEnoent() {
        ShmException e = assertThrows(ShmException.class, () -> ShmRegion.open(DIR, ShmRegion.PREFIX + "no-such-peer"));
        assertEquals(Errno.ENOENT, e.errno());
        assertTrue(e.getMessage().contains("no endpoint with that address"));
    }

    @Test
    void badNamesAreRefused() {
        assertEquals(Errno.EINVAL, assertThrows(ShmException.class, () -> ShmRegion.open(DIR, "../etc/passwd")).errno());
        assertEquals(Errno.EINVAL, assertThrows(ShmException.class,
                () -> ShmRegion.open(DIR, ShmRegion.PREFIX + "a/b")).errno());
    }

    @Test
    void garbageFileIsRefusedAsNotAJfabricRegion() throws Exception {
        Path p = writeFile(new byte[8192], true);
        try {
            ShmException e = assertThrows(ShmException.class, () -> ShmRegion.open(DIR, p.getFileName().toString()));
            assertEquals(Errno.EPROTO, e.errno());
            assertTrue(e.getMessage().contains("not a jfabric region"), e.getMessage());
            byte[] junk = new byte[8192];
            new java.util.Random(3).nextBytes(junk);
            Files.write(p, junk);
            e = assertThrows(ShmException.class, () -> ShmRegion.open(DIR, p.getFileName().toString()));
            assertTrue(e.getMessage().contains("is not a jfabric shm region (magic"), e.getMessage());
        } finally {
            Files.deleteIfExists(p);
        }
    }

    @Test
    void tinyFileIsRefused() throws Exception {
        Path p = writeFile(new byte[10], true);
        try {
            ShmException e = assertThrows(ShmException.class, () -> ShmRegion.open(DIR, p.getFileName().toString()));
            assertEquals(Errno.EPROTO, e.errno());
            assertTrue(e.getMessage().contains("too small"));
        } finally {
            Files.deleteIfExists(p);
        }
    }

    @Test
    void wrongVersionIsRefusedWithBothVersionsNamed() {
        String name = ShmRegion.newName();
        try (ShmRegion owner = ShmRegion.create(DIR, name, SMALL)) {
            owner.segment().set(ValueLayout.JAVA_INT, RegionLayout.VERSION_OFFSET, 99);
            ShmException e = assertThrows(ShmException.class, () -> ShmRegion.open(DIR, name));
            assertEquals(Errno.EPROTO, e.errno());
            assertTrue(e.getMessage().contains("version 99") && e.getMessage().contains("version " + RegionLayout.VERSION),
                    e.getMessage());
        }
    }

    @Test
    void inconsistentLayoutIsRefused() {
        String name = ShmRegion.newName();
        try (ShmRegion owner = ShmRegion.create(DIR, name, SMALL)) {
            owner.segment().set(ValueLayout.JAVA_INT, RegionLayout.RING_CAPACITY_OFFSET, 1 << 20);
            ShmException e = assertThrows(ShmException.class, () -> ShmRegion.open(DIR, name));
            assertEquals(Errno.EPROTO, e.errno());
            assertTrue(e.getMessage().contains("inconsistent"), e.getMessage());
            owner.segment().set(ValueLayout.JAVA_INT, RegionLayout.RING_CAPACITY_OFFSET, 12345);
            e = assertThrows(ShmException.class, () -> ShmRegion.open(DIR, name));
            assertTrue(e.getMessage().contains("invalid layout"), e.getMessage());
        }
    }

    @Test
    void symlinkToARegionIsRefusedNotFollowed() throws Exception {
        String target = ShmRegion.newName();
        String link = ShmRegion.newName();
        try (ShmRegion owner = ShmRegion.create(DIR, target, SMALL)) {
            Path linkPath = Files.createSymbolicLink(DIR.resolve(link), owner.path());
            try {
                ShmException e = assertThrows(ShmException.class, () -> ShmRegion.open(DIR, link));
                assertEquals(Errno.EACCES, e.errno());
                assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
                assertTrue(Files.exists(owner.path()), "the link's target is left alone");
            } finally {
                Files.deleteIfExists(linkPath);
            }
        }
    }

    @Test
    void symlinkToAForeignFileIsRefusedAndTheFileIsUntouched() throws Exception {
        Path victim = Files.createTempFile("jfabric-victim", ".bin");
        String link = ShmRegion.newName();
        Path linkPath = Files.createSymbolicLink(DIR.resolve(link), victim);
        try {
            byte[] before = new byte[8192];
            java.util.Arrays.fill(before, (byte) 0x42);
            Files.write(victim, before);
            Files.setPosixFilePermissions(victim, PosixFilePermissions.fromString("rw-------"));
            ShmException e = assertThrows(ShmException.class, () -> ShmRegion.open(DIR, link));
            assertEquals(Errno.EACCES, e.errno());
            assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
            assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(victim)), "the target file is unchanged");
        } finally {
            Files.deleteIfExists(linkPath);
            Files.deleteIfExists(victim);
        }
    }

    @Test
    void worldReadableRegionIsRefused() throws Exception {
        String name = ShmRegion.newName();
        try (ShmRegion owner = ShmRegion.create(DIR, name, SMALL)) {
            Files.setPosixFilePermissions(owner.path(), PosixFilePermissions.fromString("rw-r--r--"));
            ShmException e = assertThrows(ShmException.class, () -> ShmRegion.open(DIR, name));
            assertEquals(Errno.EACCES, e.errno());
        }
    }

    @Test
    void regionOfADeadProcessIsRefusedAndSweptAway() throws Exception {
        long deadPid = deadPid();
        String name = ShmRegion.newName();
        ShmRegion owner = ShmRegion.create(DIR, name, SMALL);
        Path copy = DIR.resolve(ShmRegion.PREFIX + deadPid + "-0-1");
        try {
            // a region left by a process that is gone: same bytes, the dead process as owner
            owner.segment().set(ValueLayout.JAVA_LONG, RegionLayout.PID_OFFSET, deadPid);
            byte[] bytes = Files.readAllBytes(owner.path());
            Files.write(copy, bytes);
            Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-------"));
            owner.segment().set(ValueLayout.JAVA_LONG, RegionLayout.PID_OFFSET, ProcessHandle.current().pid());
            ShmException e = assertThrows(ShmException.class, () -> ShmRegion.open(DIR, copy.getFileName().toString()));
            // the recorded name differs from the copy's, which is refused before liveness
            assertEquals(Errno.EPROTO, e.errno());
            assertTrue(RegionCleaner.isStale(copy));
            assertFalse(RegionCleaner.isStale(owner.path()), "a live owner's region must never count as stale");
            int removed = RegionCleaner.sweepStale(DIR);
            assertTrue(removed >= 1);
            assertFalse(Files.exists(copy));
            assertTrue(Files.exists(owner.path()));
        } finally {
            Files.deleteIfExists(copy);
            owner.close();
        }
    }

    @Test
    void deadOwnerIsEconnrefused() throws Exception {
        long deadPid = deadPid();
        String name = ShmRegion.newName();
        try (ShmRegion owner = ShmRegion.create(DIR, name, SMALL)) {
            owner.segment().set(ValueLayout.JAVA_LONG, RegionLayout.PID_OFFSET, deadPid);
            ShmException e = assertThrows(ShmException.class, () -> ShmRegion.open(DIR, name));
            assertEquals(Errno.ECONNREFUSED, e.errno());
            assertTrue(e.getMessage().contains("no longer running"));
            owner.segment().set(ValueLayout.JAVA_LONG, RegionLayout.PID_OFFSET, ProcessHandle.current().pid());
            owner.segment().set(ValueLayout.JAVA_LONG, RegionLayout.START_TIME_OFFSET, 1L);
            e = assertThrows(ShmException.class, () -> ShmRegion.open(DIR, name));
            assertEquals(Errno.ECONNREFUSED, e.errno(), "same pid but another start time is another process");
        }
    }

    /** The pid of a process that has exited (and been reaped). */
    static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        long pid = p.pid();
        p.waitFor();
        assertEquals(ProcessIdentity.GONE, ProcessIdentity.startTime(pid));
        return pid;
    }

    private static Path writeFile(byte[] content, boolean ownerOnly) throws Exception {
        Path p = DIR.resolve(ShmRegion.newName());
        Files.write(p, content);
        if (ownerOnly) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        }
        return p;
    }
}
