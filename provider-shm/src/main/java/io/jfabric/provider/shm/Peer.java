package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.RegionLayout;

import io.jfabric.util.Cma;
import io.jfabric.util.FdWatcher;
import io.jfabric.provider.shm.ffi.Pidfd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Another endpoint this process talks to: its mapped region (so we can write into its ring, ring
 * its doorbell and read its bounce slots), its process identity and what CMA can do with it.
 * libfabric keeps the same per-peer state in {@code smr_peer} / {@code smr_peer_data}.
 */
final class Peer {
    /**
     * Where every peer's pidfd is watched, so that a peer process's exit is heard when it happens, by the endpoints
     * asleep or busy with no operation to it as well, rather than at their next liveness scan.
     */
    private static final FdWatcher EXITS = new FdWatcher("jfabric-shm-peer-exits");

    final String name;
    final ShmRegion region;
    final MpscRing ring;
    final Doorbell doorbell;
    final int pid;
    final long senderId;
    /** Whether process_vm_readv on this peer worked when it was set up. */
    final boolean cmaWorks;
    /** A pidfd on the owner process (allocation-free liveness checks), or negative when unavailable. */
    private final int pidfd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment callState = arena.allocate(Pidfd.callStateSize(), 8);
    private volatile boolean dead;
    /** The address av.insert takes for this peer, made on first use (FI_SOURCE_ERR's err_data). */
    private byte[] avAddress;
    private long lastLivenessCheck;
    /** The watch on the pidfd, or null. */
    private FdWatcher.Watch exitWatch;
    private int sendsSinceClock = -1;

    Peer(String name, ShmRegion region, long senderId, boolean cmaAllowed) {
        this.name = name;
        this.region = region;
        this.ring = region.ring();
        this.doorbell = new Doorbell(region);
        this.pid = (int) region.ownerPid();
        this.senderId = senderId;
        this.cmaWorks = cmaAllowed && probeCma(region);
        int fd = Pidfd.open(pid, callState);
        // the pid could have been recycled between validating the region and opening the pidfd:
        // re-check the start time now that the fd pins one process
        if (fd >= 0 && !region.ownerAlive()) {
            Pidfd.close(fd);
            fd = -1;
            dead = true;
        }
        this.pidfd = fd;
    }

    /**
     * Watches the peer's process: when it exits, the peer is gone at once and {@code onExit} runs on the watcher's
     * thread. Without a pidfd, the liveness scans notice the exit.
     */
    void watchExit(Runnable onExit) {
        if (pidfd >= 0 && !dead) {
            exitWatch = EXITS.watch(pidfd, () -> {
                dead = true;
                onExit.run();
            });
        }
    }

    byte[] avAddress() {
        byte[] a = avAddress;
        if (a == null) {
            a = (ShmAv.SCHEME + name).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            avAddress = a;
        }
        return a;
    }

    /** Reads the magic of the peer's region through the peer's own address space. */
    private static boolean probeCma(ShmRegion region) {
        if (!Cma.linked()) {
            return false;
        }
        try (Cma cma = new Cma(); Arena a = Arena.ofConfined()) {
            MemorySegment expected = a.allocate(8);
            expected.set(ValueLayout.JAVA_LONG, 0, RegionLayout.MAGIC);
            return cma.probe((int) region.ownerPid(), region.ownerBaseAddress() + RegionLayout.MAGIC_OFFSET,
                    expected) == 0;
        }
    }

    /** Whether the peer is known to be gone (closed its endpoint, or its process died). Cheap. */
    boolean gone() {
        if (dead) {
            return true;
        }
        if (region.ownerClosed()) {
            dead = true;
        }
        return dead;
    }

    /**
     * How often, at most, the send path asks the kernel whether the peer process still exists
     * (one pidfd_send_signal(0) syscall).
     */
    static final long SEND_LIVENESS_INTERVAL_NANOS = 100_000;
    /** The send path reads the clock only on every this-many-th call (a power of two). */
    static final int SEND_CLOCK_EVERY = 32;

    /**
     * Data path: whether the peer is known to be gone. The closed flag is read every time; the peer's
     * process is checked at most every {@link #SEND_LIVENESS_INTERVAL_NANOS} of wall time, and the clock
     * is read only on every {@link #SEND_CLOCK_EVERY}-th call (System.nanoTime costs about 25 ns here,
     * a tenth of a 64 B one-way latency). Sends that ask for a completion need no more than this: their
     * completion waits until the peer has taken the message (see ShmEndpoint), so one accepted just
     * before a death is completed with ECONNRESET rather than lost.
     */
    boolean goneForSend() {
        if (gone()) {
            return true;
        }
        if ((++sendsSinceClock & (SEND_CLOCK_EVERY - 1)) != 0) {
            return false;
        }
        return checkAlive(System.nanoTime(), SEND_LIVENESS_INTERVAL_NANOS);
    }

    /**
     * Checks the peer's process, at most every {@code intervalNanos} (it reads /proc); returns
     * whether the peer is gone.
     */
    boolean checkAlive(long now, long intervalNanos) {
        if (gone()) {
            return true;
        }
        if (now - lastLivenessCheck >= intervalNanos) {
            lastLivenessCheck = now;
            boolean alive = pidfd >= 0 ? Pidfd.alive(pidfd, callState) == 0 : region.ownerAlive();
            if (!alive) {
                dead = true;
            }
        }
        return dead;
    }

    void close() {
        if (exitWatch != null) {
            EXITS.unwatch(exitWatch); // before the pidfd closes: its number may be reused
        }
        if (pidfd >= 0) {
            Pidfd.close(pidfd);
        }
        region.close();
        arena.close();
    }

    @Override
    public String toString() {
        return "Peer[" + name + ", pid " + pid + (cmaWorks ? ", cma" : ", no cma") + (dead ? ", DEAD" : "") + "]";
    }
}
