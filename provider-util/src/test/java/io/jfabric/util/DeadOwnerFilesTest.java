package io.jfabric.util;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sweep both shm providers run at start: what it deletes, what it keeps, and that it never throws. */
class DeadOwnerFilesTest {

    /** Says gone for names starting "gone", throws for names starting "broken", alive otherwise; records what it is asked. */
    private static final class ByName implements DeadOwnerFiles.OwnerCheck {
        final Set<String> asked = new TreeSet<>();
        final List<Path> removed = new ArrayList<>();
        final Set<Integer> uids = new TreeSet<>();

        @Override
        public boolean ownerGone(Path p, int uid) throws IOException {
            String name = p.getFileName().toString();
            asked.add(name);
            uids.add(uid);
            if (name.startsWith("broken")) {
                throw new IOException("header unreadable");
            }
            return name.startsWith("gone");
        }

        @Override
        public void removed(Path p) {
            removed.add(p);
        }
    }

    @Test
    void deletesOnlyRegularFilesWhoseOwnerIsGone(@TempDir Path dir, @TempDir Path outside) throws Exception {
        Path gone = Files.write(dir.resolve("gone-1"), new byte[] {1});
        Path alive = Files.write(dir.resolve("alive-1"), new byte[] {1});
        Path broken = Files.write(dir.resolve("broken-1"), new byte[] {1});
        Path subdir = Files.createDirectory(dir.resolve("gone-dir"));
        Path target = Files.write(outside.resolve("gone-target"), new byte[] {1});
        Path link = Files.createSymbolicLink(dir.resolve("gone-link"), target);
        ByName check = new ByName();

        assertEquals(1, DeadOwnerFiles.sweep(dir, "*", check));

        assertFalse(Files.exists(gone, LinkOption.NOFOLLOW_LINKS), "a file whose owner is gone is deleted");
        assertTrue(Files.exists(alive), "a file whose owner is alive is kept");
        assertTrue(Files.exists(broken), "a file that could not be judged is kept");
        assertTrue(Files.isDirectory(subdir, LinkOption.NOFOLLOW_LINKS), "a directory is kept");
        assertTrue(Files.isSymbolicLink(link), "a symbolic link is kept");
        assertTrue(Files.exists(target), "a link's target is kept");
        assertEquals(Set.of("gone-1", "alive-1", "broken-1"), check.asked, "only regular files are judged");
        assertEquals(List.of(gone), check.removed, "removed hears of the deletion, once");
        int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        assertEquals(Set.of(uid), check.uids, "the check is told this process's uid");
    }

    @Test
    void globLimitsWhatIsJudged(@TempDir Path dir) throws Exception {
        Path mine = Files.write(dir.resolve("gone-mine-1"), new byte[] {1});
        Path foreign = Files.write(dir.resolve("gone-foreign-1"), new byte[] {1});
        ByName check = new ByName();

        assertEquals(1, DeadOwnerFiles.sweep(dir, "gone-mine-*", check));

        assertFalse(Files.exists(mine));
        assertTrue(Files.exists(foreign), "a name outside the glob is not the caller's file");
        assertEquals(Set.of("gone-mine-1"), check.asked);
    }

    @Test
    void aSecondSweepFindsNothingLeft(@TempDir Path dir) throws Exception {
        Files.write(dir.resolve("gone-1"), new byte[] {1});
        Files.write(dir.resolve("gone-2"), new byte[] {1});

        assertEquals(2, DeadOwnerFiles.sweep(dir, "*", new ByName()));
        assertEquals(0, DeadOwnerFiles.sweep(dir, "*", new ByName()));
        try (var left = Files.list(dir)) {
            assertEquals(0, left.count());
        }
    }

    @Test
    void aMissingDirectoryRemovesNothingAndDoesNotThrow(@TempDir Path dir) {
        ByName check = new ByName();
        assertEquals(0, DeadOwnerFiles.sweep(dir.resolve("missing"), "*", check));
        assertTrue(check.asked.isEmpty());
    }
}
