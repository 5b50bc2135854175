package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.RegionLayout;
import io.jfabric.util.DeadOwnerFiles;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps /dev/shm tidy: unlinks this process's regions at normal JVM exit (one shutdown hook for
 * all of them), and at start sweeps away regions whose owner process is gone (a kill -9 leaves
 * its region behind). libfabric's shm does the latter with a global region list in its own
 * shared memory; here the owner's pid and start time in each header are enough.
 */
public final class RegionCleaner {

    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger("shm");
    private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(RegionCleaner::unlinkAll, "jfabric-shm-cleanup"));
    }

    /** Our own regions are alive by definition (and their header may not be written yet). */
    private static final DeadOwnerFiles.OwnerCheck STALE = new DeadOwnerFiles.OwnerCheck() {
        @Override
        public boolean ownerGone(Path p, int uid) throws IOException {
            return !LIVE.contains(p) && isStale(p);
        }

        @Override
        public void removed(Path p) {
            LOG.log(System.Logger.Level.INFO, "removed stale shm region {0}", p);
        }
    };

    private RegionCleaner() {
    }

    static void register(Path path) {
        LIVE.add(path);
    }

    static void unregister(Path path) {
        LIVE.remove(path);
    }

    private static void unlinkAll() {
        for (Path p : LIVE) {
            ShmRegion.deleteQuietly(p);
        }
        LIVE.clear();
    }

    /**
     * Removes regions in {@code directory} that belong to this user and whose owner is no longer
     * running. A region whose header is unreadable counts as stale when the pid in its file name is
     * gone. Regions of live processes, other users' files and unrelated files are left alone.
     *
     * @return how many regions were removed
     */
    public static int sweepStale(Path directory) {
        return DeadOwnerFiles.sweep(directory, ShmRegion.PREFIX + "*", STALE);
    }

    /** Whether the owner of the region file {@code p} is gone. */
    static boolean isStale(Path p) throws IOException {
        long namePid = pidFromName(p.getFileName().toString());
        try (Arena arena = Arena.ofConfined();
             FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size >= RegionLayout.HEADER_LENGTH) {
                MemorySegment seg = ch.map(FileChannel.MapMode.READ_ONLY, 0, RegionLayout.HEADER_LENGTH, arena);
                if (seg.get(java.lang.foreign.ValueLayout.JAVA_LONG, RegionLayout.MAGIC_OFFSET) == RegionLayout.MAGIC) {
                    long pid = seg.get(java.lang.foreign.ValueLayout.JAVA_LONG, RegionLayout.PID_OFFSET);
                    long start = seg.get(java.lang.foreign.ValueLayout.JAVA_LONG, RegionLayout.START_TIME_OFFSET);
                    return !ProcessIdentity.isAlive(pid, start);
                }
            }
        }
        // no valid header: judge by the creator's pid in the name (a region being created right now
        // belongs to a live process and is kept)
        return namePid > 0 && ProcessIdentity.startTime(namePid) == ProcessIdentity.GONE;
    }

    /** The pid in a name of the form {@code jfabric-shm-<pid>-...}, or -1. */
    static long pidFromName(String name) {
        if (!name.startsWith(ShmRegion.PREFIX)) {
            return -1;
        }
        String rest = name.substring(ShmRegion.PREFIX.length());
        int dash = rest.indexOf('-');
        String digits = dash < 0 ? rest : rest.substring(0, dash);
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
