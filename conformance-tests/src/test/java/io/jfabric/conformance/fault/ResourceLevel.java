package io.jfabric.conformance.fault;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a fault could leak in this process, measured from /proc: the file descriptors of kinds a provider
 * opens (sockets, pipes, epoll/event fds, /dev/shm files), the mappings of shm regions, and the heap in use
 * after a collection. {@link #leaksSince} compares two measurements.
 */
record ResourceLevel(List<String> fds, long shmMappings, long heapAfterGc) {
    /** Heap growth that is noise (class loading, JIT metadata on the heap, the test's own bookkeeping). */
    static final long HEAP_SLACK = 16L << 20;

    static ResourceLevel now() {
        return new ResourceLevel(readFds(), readShmMappings(), readHeapAfterGc());
    }

    /** Empty when this level is back at {@code start}'s; otherwise what grew. */
    String leaksSince(ResourceLevel start) {
        List<String> problems = new ArrayList<>();
        List<String> extra = new ArrayList<>(fds);
        start.fds.forEach(extra::remove);
        if (fds.size() > start.fds.size()) {
            problems.add((fds.size() - start.fds.size()) + " more file descriptors than at the start: " + extra);
        }
        if (shmMappings > start.shmMappings) {
            problems.add((shmMappings - start.shmMappings) + " more shm region mappings than at the start");
        }
        if (heapAfterGc > start.heapAfterGc + HEAP_SLACK) {
            problems.add("heap in use after GC grew by " + ((heapAfterGc - start.heapAfterGc) >> 20) + " MiB");
        }
        return String.join("; ", problems);
    }

    static List<String> readFds() {
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String target;
                try {
                    target = Files.readSymbolicLink(p).toString();
                } catch (IOException e) {
                    continue; // the fd the listing itself used, closed by now
                }
                // sockets and anon inodes differ only in their inode number; keep the kind
                if (target.startsWith("socket:") || target.startsWith("pipe:") || target.startsWith("anon_inode:")) {
                    out.add(target.replaceAll("\\[\\d+]", ""));
                } else if (target.startsWith("/dev/shm/")) {
                    out.add(target);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc/self/fd", e);
        }
        return out;
    }

    static long readShmMappings() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains("/dev/shm/jfabric-shm-")).count();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/self/maps", e);
        }
    }

    static long readHeapAfterGc() {
        var mem = ManagementFactory.getMemoryMXBean();
        System.gc();
        System.gc();
        return mem.getHeapMemoryUsage().getUsed();
    }
}
