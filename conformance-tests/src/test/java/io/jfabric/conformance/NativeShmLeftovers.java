package io.jfabric.conformance;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * libfabric 1.17's shm names each endpoint's region {@code <pid>:<n>:<n>} in /dev/shm and unlinks it only in
 * fi_close. A peer process that is killed, or that halts with endpoints open, leaves its regions behind:
 * 16 MiB of address space each, and the pages it touched stay in memory until the machine restarts. After a
 * peer has gone, the test removes what it left.
 */
final class NativeShmLeftovers {
    private static final Path SHM = Path.of("/dev/shm");

    private NativeShmLeftovers() {}

    /** Removes the regions of {@code pid}, which must have exited. */
    static void removeOf(long pid) throws IOException {
        if (!Files.isDirectory(SHM)) {
            return;
        }
        try (DirectoryStream<Path> regions = Files.newDirectoryStream(SHM, pid + ":*")) {
            for (Path region : regions) {
                Files.deleteIfExists(region);
            }
        }
    }
}
