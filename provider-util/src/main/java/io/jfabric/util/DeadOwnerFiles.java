package io.jfabric.util;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Removes the files that processes killed mid-run left in a shared directory such as /dev/shm: a shared-memory
 * region is unlinked by its owner when it closes, so a kill -9 leaves it behind for good, and with pid reuse a
 * leftover can even pass for a live process's. jfabric's shm provider and the libfabric bridge each sweep their
 * own kind of region; only the question "is this file's owner gone?" differs (each reads its own header), so
 * the walk and its safety rules live here once:
 * <ul>
 * <li>only this user's files are candidates: another user's region is not ours to judge, and a sweep should
 *     never depend on being refused by permissions;</li>
 * <li>only regular files, never through a symbolic link, so that an entry in a world-writable directory
 *     cannot steer a deletion elsewhere;</li>
 * <li>a file that cannot be read or judged is kept: a region being created, or one vanishing meanwhile, must
 *     not cost a live process its region, and a sweep never fails the caller (it runs as a side effect of
 *     opening a fabric).</li>
 * </ul>
 */
public final class DeadOwnerFiles {
    private static final System.Logger LOG = FabricLog.logger("util");

    /** A provider's answer for one of its files; {@link #sweep} deletes the file when it says gone. */
    @FunctionalInterface
    public interface OwnerCheck {
        /**
         * @param p   a regular file of this user in the swept directory
         * @param uid this process's user id (libfabric's shm puts it in its region names)
         * @return whether the process that made {@code p} is gone; an {@link IOException} keeps the file
         */
        boolean ownerGone(Path p, int uid) throws IOException;

        /** After this sweep deleted {@code p}; a provider that reports each removal logs it here. */
        default void removed(Path p) {
        }
    }

    private DeadOwnerFiles() {
    }

    /**
     * Deletes the files of {@code dir} matching {@code glob} whose owner {@code check} says is gone. Never
     * throws: an unreadable directory removes nothing, an entry that cannot be judged or deleted is kept.
     *
     * @param glob a {@link java.nio.file.FileSystem#getPathMatcher glob} on the file name; {@code "*"} for all
     * @return how many files this call deleted
     */
    public static int sweep(Path dir, String glob, OwnerCheck check) {
        int uid;
        try {
            uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | RuntimeException e) {
            // not Linux, or no procfs: without our uid no file can be told to be ours
            return 0;
        }
        int removed = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, glob)) {
            for (Path p : entries) {
                try {
                    if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                            && (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS) == uid
                            && check.ownerGone(p, uid)
                            && Files.deleteIfExists(p)) {
                        removed++;
                        check.removed(p);
                    }
                } catch (IOException | RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "kept {0}: {1}", p, e);
                }
            }
        } catch (IOException | RuntimeException e) {
            // RuntimeException: DirectoryIteratorException, a listing that failed half way
            LOG.log(System.Logger.Level.DEBUG, "could not list {0}: {1}", dir, e);
        }
        return removed;
    }
}
