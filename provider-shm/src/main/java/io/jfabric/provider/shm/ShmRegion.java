package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.RegionLayout;
import io.jfabric.provider.shm.wire.RegionHeader;

import io.jfabric.Errno;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.FileSystemException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * One endpoint's POSIX shared-memory region: a file of mode 0600 under {@code /dev/shm}, mapped
 * into this process as a {@link MemorySegment}. The owner {@linkplain #create creates} it and
 * unlinks it on {@link #close()} (or at JVM exit); peers {@linkplain #open open} it to write into
 * its ring, after the header has been validated.
 *
 * <p>Mirrors libfabric's {@code smr_region} (util_shm.c): one region per endpoint, named after
 * the endpoint address. Differences: the layout is jfabric's own (no C interop), the owner is
 * identified by pid and start time, and everything an opener reads from the header is checked
 * against the file before use.
 */
public final class ShmRegion implements AutoCloseable {

    /** File names of jfabric regions start with this, so stale ones can be found and removed. */
    public static final String PREFIX = "jfabric-shm-";
    public static final Path DEFAULT_DIRECTORY = Path.of("/dev/shm");

    private static final java.util.concurrent.atomic.AtomicInteger SEQUENCE = new java.util.concurrent.atomic.AtomicInteger();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final Path path;
    private final String name;
    private final Arena arena;
    private final MemorySegment segment;
    private final RegionLayout layout;
    private final boolean owner;
    private final long ownerPid;
    private final long ownerStartTime;
    private final MpscRing ring;
    private final BouncePool bouncePool;
    private volatile boolean closed;

    private ShmRegion(Path path, String name, Arena arena, MemorySegment segment, RegionLayout layout,
                      boolean owner, long ownerPid, long ownerStartTime) {
        this.path = path;
        this.name = name;
        this.arena = arena;
        this.segment = segment;
        this.layout = layout;
        this.owner = owner;
        this.ownerPid = ownerPid;
        this.ownerStartTime = ownerStartTime;
        this.ring = new MpscRing(segment.asSlice(layout.ringOffset(), layout.ringSegmentLength()));
        this.bouncePool = new BouncePool(segment.asSlice(layout.bounceOffset(), layout.bounceLength()),
                layout.bounceSlotSize(), layout.bounceSlotCount());
    }

    /**
     * A region name no other live or stale region can have: the prefix, this pid, this process's
     * start time (a recycled pid differs in it) and a per-process sequence number.
     */
    public static String newName() {
        return PREFIX + ProcessIdentity.selfPid() + "-" + ProcessIdentity.selfStartTime() + "-"
                + SEQUENCE.incrementAndGet();
    }

    /**
     * Creates and maps a new region named {@code name} in {@code directory}, mode 0600, owned by
     * this process. It is unlinked on {@link #close()} and, failing that, at normal JVM exit.
     *
     * @throws ShmException EEXIST if the name is taken, EINVAL for a bad name, EIO otherwise
     */
    public static ShmRegion create(Path directory, String name, RegionLayout layout) {
        checkName(name);
        Path path = directory.resolve(name);
        long size = layout.regionLength();
        Arena arena = Arena.ofShared();
        boolean created = false;
        try (FileChannel ch = FileChannel.open(path,
                EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(OWNER_ONLY))) {
            created = true;
            RegionCleaner.register(path);
            // the umask can only remove bits, but a permissive FS default must not widen them either
            Files.setPosixFilePermissions(path, OWNER_ONLY);
            MemorySegment seg = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            long pid = ProcessIdentity.selfPid();
            long start = ProcessIdentity.selfStartTime();
            seg.set(ValueLayout.JAVA_INT, RegionLayout.VERSION_OFFSET, RegionLayout.VERSION);
            seg.set(ValueLayout.JAVA_INT, RegionLayout.HEADER_LENGTH_OFFSET, RegionLayout.HEADER_LENGTH);
            seg.set(ValueLayout.JAVA_LONG, RegionLayout.PID_OFFSET, pid);
            seg.set(ValueLayout.JAVA_LONG, RegionLayout.START_TIME_OFFSET, start);
            seg.set(ValueLayout.JAVA_LONG, RegionLayout.REGION_LENGTH_OFFSET, size);
            seg.set(ValueLayout.JAVA_LONG, RegionLayout.RING_OFFSET_OFFSET, layout.ringOffset());
            seg.set(ValueLayout.JAVA_INT, RegionLayout.RING_CAPACITY_OFFSET, layout.ringCapacity());
            seg.set(ValueLayout.JAVA_LONG, RegionLayout.BOUNCE_OFFSET_OFFSET, layout.bounceOffset());
            seg.set(ValueLayout.JAVA_INT, RegionLayout.BOUNCE_SLOT_SIZE_OFFSET, layout.bounceSlotSize());
            seg.set(ValueLayout.JAVA_INT, RegionLayout.BOUNCE_SLOT_COUNT_OFFSET, layout.bounceSlotCount());
            seg.set(ValueLayout.JAVA_LONG, RegionLayout.BASE_ADDRESS_OFFSET, seg.address());
            byte[] nameBytes = name.getBytes(StandardCharsets.US_ASCII);
            seg.set(ValueLayout.JAVA_INT, RegionLayout.NAME_LENGTH_OFFSET, nameBytes.length);
            MemorySegment.copy(nameBytes, 0, seg, ValueLayout.JAVA_BYTE, RegionLayout.NAME_OFFSET, nameBytes.length);
            LONG.setRelease(seg, (long) RegionLayout.MAGIC_OFFSET, RegionLayout.MAGIC);
            return new ShmRegion(path, name, arena, seg, layout, true, pid, start);
        } catch (FileAlreadyExistsException e) {
            arena.close();
            throw new ShmException(Errno.EEXIST, "shm region " + path + " already exists; another endpoint uses this name "
                    + "(pick another name, or remove the file if its owner is gone)", e);
        } catch (IOException | RuntimeException e) {
            arena.close();
            if (created) {
                deleteQuietly(path);
                RegionCleaner.unregister(path);
            }
            throw new ShmException(Errno.EIO, "cannot create shm region " + path + ": " + e
                    + " (check that " + directory + " exists, is a tmpfs and has space)", e);
        }
    }

    /**
     * Maps an existing region that a peer owns, after checking that it is a jfabric region of this
     * version, owned by this user with mode 0600, internally consistent, and that its owner is alive.
     *
     * @throws ShmException ENOENT (no such peer), EACCES (foreign owner or mode), EPROTO (not a
     *     jfabric region, wrong version, inconsistent header), ECONNREFUSED (its owner is dead)
     */
    public static ShmRegion open(Path directory, String name) {
        checkName(name);
        Path path = directory.resolve(name);
        Object checkedFile = checkOwnership(path);
        Arena arena = Arena.ofShared();
        // O_NOFOLLOW: a symlink swapped in after the check is refused by the kernel, not followed; the file key
        // compared after the open catches a regular file swapped in between the check and the open
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            if (!checkedFile.equals(fileKey(path))) {
                throw new ShmException(Errno.EACCES, "shm region " + path + " was replaced while it was being opened; "
                        + "refusing it (another process is tampering with " + path.getParent() + ")");
            }
            long fileSize = ch.size();
            if (fileSize < RegionLayout.HEADER_LENGTH) {
                throw new ShmException(Errno.EPROTO, "shm region " + path + " is " + fileSize
                        + " bytes, too small to be a jfabric region; it is not one (or is still being created)");
            }
            MemorySegment seg = ch.map(FileChannel.MapMode.READ_WRITE, 0, fileSize, arena);
            RegionHeader header = RegionHeader.validate(seg, fileSize, name, path);
            if (!ProcessIdentity.isAlive(header.pid(), header.startTime())) {
                throw new ShmException(Errno.ECONNREFUSED, "shm region " + path + " belongs to process " + header.pid()
                        + ", which is no longer running; the peer is gone (its region is stale)");
            }
            return new ShmRegion(path, name, arena, seg, header.layout(), false, header.pid(), header.startTime());
        } catch (NoSuchFileException e) {
            arena.close();
            throw new ShmException(Errno.ENOENT, "no shm region " + path + ": no endpoint with that address exists "
                    + "on this machine (check the address and that the peer has opened its endpoint)", e);
        } catch (FileSystemException e) {
            arena.close();
            if (Files.isSymbolicLink(path)) {
                throw symlinkRefused(path, e);
            }
            throw new ShmException(Errno.EIO, "cannot open shm region " + path + ": " + e, e);
        } catch (IOException e) {
            arena.close();
            throw new ShmException(Errno.EIO, "cannot open shm region " + path + ": " + e, e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * Checks owner, mode and type of {@code path} without following a symlink, and returns its file key
     * (device and inode) so the caller can make sure it opened that very file.
     */
    private static Object checkOwnership(Path path) {
        try {
            BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (attrs.isSymbolicLink()) {
                throw symlinkRefused(path, null);
            }
            int fileUid = (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            int myUid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            if (fileUid != myUid) {
                throw new ShmException(Errno.EACCES, "shm region " + path + " is owned by uid " + fileUid
                        + ", not by this user (" + myUid + "); shm only connects processes of one user");
            }
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS);
            if (!perms.equals(OWNER_ONLY)) {
                throw new ShmException(Errno.EACCES, "shm region " + path + " has mode "
                        + PosixFilePermissions.toString(perms) + ", not rw-------; refusing a region others can touch");
            }
            if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
                throw new ShmException(Errno.EACCES, "shm region " + path + " is not a regular file");
            }
            return attrs.fileKey();
        } catch (NoSuchFileException e) {
            throw new ShmException(Errno.ENOENT, "no shm region " + path + ": no endpoint with that address exists "
                    + "on this machine (check the address and that the peer has opened its endpoint)", e);
        } catch (IOException e) {
            throw new ShmException(Errno.EIO, "cannot stat shm region " + path + ": " + e, e);
        }
    }

    private static Object fileKey(Path path) throws IOException {
        return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
    }

    private static ShmException symlinkRefused(Path path, Exception cause) {
        return new ShmException(Errno.EACCES, "shm region " + path + " is a symbolic link; refusing to follow it "
                + "(a region is always a regular file that its owner created; remove the link)", cause);
    }

    static void checkName(String name) {
        if (name == null || name.isEmpty() || name.length() > RegionLayout.MAX_NAME_LENGTH
                || !name.startsWith(PREFIX) || !name.chars().allMatch(c -> c > 32 && c < 127 && c != '/')) {
            throw new ShmException(Errno.EINVAL, "bad shm region name '" + name + "': it must start with '"
                    + PREFIX + "', be printable ASCII without '/' and at most "
                    + RegionLayout.MAX_NAME_LENGTH + " characters");
        }
    }

    public String name() {
        return name;
    }

    public Path path() {
        return path;
    }

    public MemorySegment segment() {
        return segment;
    }

    public RegionLayout layout() {
        return layout;
    }

    public MpscRing ring() {
        return ring;
    }

    public BouncePool bouncePool() {
        return bouncePool;
    }

    public boolean isOwner() {
        return owner;
    }

    public long ownerPid() {
        return ownerPid;
    }

    public long ownerStartTime() {
        return ownerStartTime;
    }

    /** The owner's virtual address of its own mapping, as it wrote it (for CMA into the owner). */
    public long ownerBaseAddress() {
        return segment.get(ValueLayout.JAVA_LONG, RegionLayout.BASE_ADDRESS_OFFSET);
    }

    /** Address of the doorbell word (for futex) in this process's mapping. */
    public long doorbellAddress() {
        return segment.address() + RegionLayout.DOORBELL_OFFSET;
    }

    /** Whether the owner is still the live process that created the region. */
    public boolean ownerAlive() {
        return ProcessIdentity.isAlive(ownerPid, ownerStartTime);
    }

    /** Whether the owner has marked the region closed (its endpoint is gone). */
    public boolean ownerClosed() {
        return (long) LONG.getAcquire(segment, (long) RegionLayout.CLOSED_OFFSET) != 0;
    }

    /** How many peers have announced the close of an endpoint (RegionLayout): progress scans when it moves. */
    public int closeNotices() {
        return (int) INT.getVolatile(segment, (long) RegionLayout.CLOSE_NOTICES_OFFSET);
    }

    /** Tells this region's owner that a peer endpoint it may be waiting on has closed (ring its doorbell after). */
    public void noticeClose() {
        INT.getAndAdd(segment, (long) RegionLayout.CLOSE_NOTICES_OFFSET, 1);
    }

    /** Int field access for the doorbell (shared with {@link Doorbell}). */
    static VarHandle intHandle() {
        return INT;
    }

    /**
     * Unmaps the region; the owner also marks it closed and unlinks it. No other thread may be
     * using the segment any more.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (owner) {
            LONG.setRelease(segment, (long) RegionLayout.CLOSED_OFFSET, 1L);
            deleteQuietly(path);
            RegionCleaner.unregister(path);
        }
        arena.close();
    }

    /** Removes this process's file without unmapping (used when the region was never fully created). */
    static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // best effort: a stale file is removed by the next start's sweep
        }
    }

    @Override
    public String toString() {
        return "ShmRegion[" + path + ", owner pid " + ownerPid + (owner ? " (this process)" : "") + ", " + ring + "]";
    }
}
