package io.jfabric.provider.libfabric;

import io.jfabric.util.DeadOwnerFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes the /dev/shm regions that native shm endpoints of dead processes left behind. libfabric's shm names a
 * region {@code <pid>:<uid>:<index>} and unlinks it only when its endpoint closes, so a killed process leaves it;
 * libfabric reclaims such a file when a new endpoint wants the same name, unless the new endpoint's process has the
 * dead one's pid, which it then takes for alive and refuses (FI_EBUSY, see {@link LibfabricEndpoint#enable}). Fewer
 * leftovers make that rarer for every process, native tools included. Only this user's regions written by this
 * libfabric's shm (its region version), whose recorded pid is the one in the name and no longer runs, are removed.
 */
final class ShmLeftovers {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger("libfabric");
    private static final Pattern NAME = Pattern.compile("(\\d{1,10}):(\\d{1,10}):(\\d{1,10})");
    /** libfabric 1.17's SMR_VERSION, the first byte of a region; the owner's pid is the int at byte 4. */
    static final int REGION_VERSION = 4;
    private static volatile boolean swept;

    private ShmLeftovers() {
    }

    /** Sweeps /dev/shm once per process, on the first native shm fabric. */
    static void sweepOnce() {
        if (swept) {
            return;
        }
        synchronized (ShmLeftovers.class) {
            if (!swept) {
                swept = true;
                int n = sweep(Path.of("/dev/shm"));
                if (n > 0) {
                    LOG.log(System.Logger.Level.DEBUG, "removed {0} shm regions of dead processes", n);
                }
            }
        }
    }

    /** @return how many leftovers were removed from {@code dir} */
    static int sweep(Path dir) {
        return DeadOwnerFiles.sweep(dir, "*", ShmLeftovers::isLeftover);
    }

    private static boolean isLeftover(Path p, int uid) throws IOException {
        Matcher m = NAME.matcher(p.getFileName().toString());
        if (!m.matches() || Long.parseLong(m.group(2)) != uid) {
            return false;
        }
        long namedPid = Long.parseLong(m.group(1));
        ByteBuffer head = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            while (head.hasRemaining() && ch.read(head) > 0) {
                // a header is 8 bytes; a shorter file is being created or not a region
            }
        }
        // a region still being created has no version yet: it belongs to a live process
        return !head.hasRemaining() && head.get(0) == REGION_VERSION && head.getInt(4) == namedPid
                && !Files.exists(Path.of("/proc", Long.toString(namedPid)));
    }
}
