package io.jfabric.util;

import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.OpFlags;
import io.jfabric.WaitObj;
import io.jfabric.util.jfr.CqOverrunEvent;
import io.jfabric.util.jfr.EventGate;
import io.jfabric.util.jfr.OperationErrorEvent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * libfabric's util CQ ({@code prov/util/src/util_cq.c}): a bounded, ordered ring of preallocated
 * entries that providers write completions into and applications read, following fi_cq(3).
 *
 * <h2>Semantics</h2>
 * <ul>
 * <li>Reads copy the fields the {@link CqFormat} covers into caller-owned entries and clear the rest
 * (UNSPEC reads as CONTEXT). {@code read} sets {@code srcAddr} to FI_ADDR_NOTAVAIL; {@code readFrom}
 * fills it.</li>
 * <li>A read returns the successes ahead of an error entry, and {@code -EAVAIL} when the error is at
 * the head; entries behind it wait until {@link #readError} consumes it.</li>
 * <li>Every read first calls the provider's {@link ProgressHook}; {@code read(entries, 0)} only
 * progresses.</li>
 * <li>sread sleeps in a {@link WaitCoordinator} (one waiter drives progress and sleeps on the provider's
 * event source, the others park; virtual threads never pin) and wakes when an entry is written or
 * {@link #signal()} is called; it returns -EAGAIN on timeout or signal, -ENOSYS on a FI_WAIT_NONE CQ.</li>
 * <li>With FI_WAIT_SET the CQ joins {@code attr.waitSet} (a {@link UtilWaitSet}) until it is closed.</li>
 * </ul>
 *
 * <h2>Overrun (a deliberate choice)</h2>
 * libfabric's util CQ grows an unbounded overflow list when the ring is full. This one never grows and
 * never loses a completion silently: the capacity is {@code attr.size} (default 1024); a write that
 * finds it full is refused with {@code -EOVERRUN} and puts the CQ into the overrun state fi_cq(3)
 * describes: entries already queued stay readable, later writes are refused (and counted), and once
 * the queued entries are drained every read returns {@code -EAVAIL} and {@link #readError} reports
 * {@code err = EOVERRUN} with {@code data} = the number of completions lost. The state is fatal, as
 * fi_cq(3) says. Providers that want to push back instead (FI_RM_ENABLED: "full CQ → EAGAIN") check
 * {@link #freeSlots()} or, race-free, {@link #tryReserve()} before accepting an operation and write
 * its completion with a {@code reserved = true} write.
 *
 * <h2>Threading</h2>
 * The ring is lock-free between one writer thread and one reader thread (release/acquire on head and
 * tail), which covers FI_THREAD_DOMAIN/COMPLETION/ENDPOINT with either manual progress (the reader's
 * thread writes inside its own progress) or auto progress (a progress thread writes, the application
 * reads). Pass {@code multiWriter = true} when completions can be written from more than one thread at
 * once (a progress thread plus error completions written from the posting thread, or
 * FI_THREAD_SAFE with writes from application threads); pass {@code multiReader = true} for
 * FI_THREAD_SAFE, where several application threads may read one CQ. Each flag adds one uncontended
 * lock on that side only. Pass {@code serialized = true} when every write and every read happens inside
 * calls the application already serialises (FI_THREAD_DOMAIN with manual progress: completions are
 * written by the reader's own progress or by its posting calls): the tail is
 * then published with a release store instead of a volatile one (no fence on x86) and the slot count is
 * kept without atomic instructions, which saves three locked instructions per completion. A provider whose
 * completions are all written under one lock of its own that its progress takes too (shm's domain lock at
 * FI_THREAD_SAFE) passes that lock as the guard instead: writes and reads take it, unless the thread holds it
 * already, and a read holds it across its progress call, so the queue adds no lock of its own (two of its own cost
 * shm's 64 B round trip 0.15 µs each way).
 */
public class UtilCompletionQueue extends UtilFabricObject implements CompletionQueue, Waitable {
    /** libfabric's util default CQ size. */
    public static final int DEFAULT_SIZE = 1024;
    /** How long a sread parks between progress calls when the hook cannot block itself. */
    public static final long DEFAULT_MANUAL_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle CLAIMED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(UtilCompletionQueue.class, "head", long.class);
            TAIL = l.findVarHandle(UtilCompletionQueue.class, "tail", long.class);
            CLAIMED = l.findVarHandle(UtilCompletionQueue.class, "claimed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final CqAttr attr;
    private final CqFormat format;
    private final int capacity;
    private final int mask;
    private final CqErrEntry[] slots;
    private final ProgressHook progress;
    private final ReentrantLock writeLock;
    private final ReentrantLock readLock;
    private final long manualPollNanos;
    /** Writers and readers are serialised by the application: plain counts, release instead of volatile. */
    private final boolean serialized;
    /** The read lock is the provider's own lock, which its progress takes too: a read holds it across both. */
    private final boolean progressUnderReadLock;

    // Padding keeps the reader's and writer's hot fields on separate cache lines.
    @SuppressWarnings("unused")
    private long p01, p02, p03, p04, p05, p06, p07;
    private volatile long head;
    @SuppressWarnings("unused")
    private long p11, p12, p13, p14, p15, p16, p17;
    private volatile long tail;
    @SuppressWarnings("unused")
    private long p21, p22, p23, p24, p25, p26, p27;

    /**
     * Slots filled or promised: writers claim before filling (a reservation claims early), the reader
     * gives slots back after it has moved the head, so it never undercounts.
     */
    private volatile int claimed;
    private volatile boolean overrun;
    private volatile long lost;

    private final WaitCoordinator waiters;
    private final WaitCoordinator.Readiness readable = this::hasEvents;
    private final AtomicInteger signals = new AtomicInteger();
    /** The wait set this CQ joined (FI_WAIT_SET), else null. */
    private final UtilWaitSet waitSet;

    /**
     * @param attr        the application's attributes; size 0 means {@link #DEFAULT_SIZE}
     * @param progress    called at the start of every read; {@link ProgressHook#NONE} for auto progress
     * @param multiWriter completions may be written by several threads at once
     * @param multiReader the application may read from several threads at once (FI_THREAD_SAFE)
     */
    public UtilCompletionQueue(CqAttr attr, ProgressHook progress, boolean multiWriter, boolean multiReader) {
        this(attr, progress, multiWriter, multiReader, DEFAULT_MANUAL_POLL_NANOS);
    }

    public UtilCompletionQueue(CqAttr attr, ProgressHook progress, boolean multiWriter, boolean multiReader,
                               long manualPollNanos) {
        this(attr, progress, multiWriter, multiReader, manualPollNanos, false);
    }

    /**
     * @param serialized every write and read happens in calls the application serialises (see the class
     *                   comment); ignored when {@code multiWriter} or {@code multiReader} is set
     */
    public UtilCompletionQueue(CqAttr attr, ProgressHook progress, boolean multiWriter, boolean multiReader,
                               long manualPollNanos, boolean serialized) {
        this(checked(attr), progress, multiWriter ? new ReentrantLock() : null,
                multiReader ? new ReentrantLock() : null, manualPollNanos,
                serialized && !multiWriter && !multiReader);
    }

    /**
     * A CQ whose writes all happen under the provider's own reentrant lock ({@code guard}), the one its
     * progress takes (a domain lock at FI_THREAD_SAFE with manual progress): a write takes {@code guard}
     * (at no cost where the writer already holds it), and with {@code multiReader} a read holds it across its
     * progress call and its drain, so the queue needs no locks of its own.
     */
    public UtilCompletionQueue(CqAttr attr, ProgressHook progress, ReentrantLock guard, boolean multiReader) {
        this(checked(attr), progress, java.util.Objects.requireNonNull(guard, "guard"), multiReader ? guard : null,
                DEFAULT_MANUAL_POLL_NANOS, false);
    }

    private UtilCompletionQueue(CqAttr attr, ProgressHook progress, ReentrantLock writeLock, ReentrantLock readLock,
                                long manualPollNanos, boolean serialized) {
        super("CQ");
        UtilWaitSet set = UtilWaitSet.joinable("CQ", attr.waitObj, attr.waitSet);
        this.attr = attr;
        this.format = attr.format == null || attr.format == CqFormat.UNSPEC ? CqFormat.CONTEXT : attr.format;
        this.capacity = attr.size == 0 ? DEFAULT_SIZE : (int) attr.size;
        int len = Integer.highestOneBit(capacity) == capacity ? capacity : Integer.highestOneBit(capacity) << 1;
        this.mask = len - 1;
        this.slots = new CqErrEntry[len];
        for (int i = 0; i < len; i++) {
            slots[i] = new CqErrEntry();
        }
        this.progress = progress == null ? ProgressHook.NONE : progress;
        this.writeLock = writeLock;
        this.readLock = readLock;
        this.manualPollNanos = manualPollNanos;
        this.serialized = serialized;
        // only a guard is both: the provider's progress takes it too, so a read holds it across both
        this.progressUnderReadLock = readLock != null && readLock == writeLock;
        this.waiters = new WaitCoordinator(false, manualPollNanos);
        this.waitSet = set;
        if (set != null) {
            set.join(this);
        }
    }

    /**
     * Takes {@code lock} unless it is null or this thread holds it already (a guard's writer inside its progress):
     * returns the lock to release, or null. A reentrant acquisition would cost a failed CAS and a volatile store.
     */
    private static ReentrantLock takeUnlessHeld(ReentrantLock lock) {
        if (lock == null || lock.isHeldByCurrentThread()) {
            return null;
        }
        lock.lock();
        return lock;
    }

    private static CqAttr checked(CqAttr attr) {
        if (attr == null) {
            throw new FabricException(Errno.EINVAL, "CQ attributes are null; pass CqAttr.of(format, size)");
        }
        if (attr.size < 0 || attr.size > (1 << 24)) {
            throw new FabricException(Errno.EINVAL, "CQ size " + attr.size
                    + " is out of range; use 0 (provider default " + DEFAULT_SIZE + ") up to " + (1 << 24));
        }
        return attr;
    }

    @Override
    public CqAttr attr() {
        return attr;
    }

    /** The format reads use (UNSPEC resolved to CONTEXT). */
    public CqFormat format() {
        return format;
    }

    /** Entries the CQ holds at most. */
    public int capacity() {
        return capacity;
    }

    /** Entries waiting to be read (success and error). */
    public int size() {
        return (int) ((long) TAIL.getAcquire(this) - (long) HEAD.getAcquire(this));
    }

    /** Slots neither filled nor reserved; a provider may return -EAGAIN to a post when this is 0. */
    public int freeSlots() {
        return Math.max(0, capacity - claimed);
    }

    /** Whether the CQ has been overrun (fatal, see the class comment). */
    public boolean isOverrun() {
        return overrun;
    }

    /** Completions refused since the overrun. */
    public long lostCompletions() {
        return lost;
    }

    // ---- reservations ----------------------------------------------------------------------------

    /**
     * Promises one slot to an operation the provider is about to accept, so that its completion can
     * never overrun the CQ; false when every slot is filled or promised (answer the post with -EAGAIN).
     * The completion is then written with {@code reserved = true}, or the promise is returned with
     * {@link #cancelReservation()} when the operation completes without a CQ entry.
     */
    public boolean tryReserve() {
        return claimSlot();
    }

    /** Returns a slot promised by {@link #tryReserve()} that will not be written. */
    public void cancelReservation() {
        releaseSlots(1);
    }

    /** Slots promised and not yet written (approximate while writers run). */
    public int reservations() {
        return Math.max(0, claimed - size());
    }

    private boolean claimSlot() {
        if (serialized) {
            int c = (int) CLAIMED.get(this);
            if (c >= capacity) {
                return false;
            }
            CLAIMED.set(this, c + 1);
            return true;
        }
        for (;;) {
            int c = claimed;
            if (c >= capacity) {
                return false;
            }
            if (CLAIMED.compareAndSet(this, c, c + 1)) {
                return true;
            }
        }
    }

    private void releaseSlots(int n) {
        if (serialized) {
            CLAIMED.set(this, (int) CLAIMED.get(this) - n);
        } else {
            CLAIMED.getAndAdd(this, -n);
        }
    }

    // ---- provider side: writes -------------------------------------------------------------------

    /** Writes a success completion ({@code ofi_cq_write}); returns 0, or -EOVERRUN (see class comment). */
    public int write(Object context, long flags, long len, long buf, long data, long tag) {
        return put(false, context, flags, len, buf, data, tag, Fabrics.ADDR_NOTAVAIL, 0, 0, 0, null);
    }

    /** As {@link #write} with the sender's fi_addr for readFrom ({@code ofi_cq_write_src}). */
    public int writeFrom(Object context, long flags, long len, long buf, long data, long tag, long srcAddr) {
        return put(false, context, flags, len, buf, data, tag, srcAddr, 0, 0, 0, null);
    }

    /** As {@link #writeFrom}, filling a slot promised by {@link #tryReserve()} when {@code reserved}. */
    public int writeFrom(boolean reserved, Object context, long flags, long len, long buf, long data, long tag,
                         long srcAddr) {
        return put(reserved, context, flags, len, buf, data, tag, srcAddr, 0, 0, 0, null);
    }

    /**
     * Writes an error completion ({@code ofi_cq_write_error}). {@code err} is a positive Errno (0 or
     * negative values are normalised to EOTHER / their absolute value); {@code olen} is the truncated
     * byte count for ETRUNC; {@code errData} is handed to the reader as is.
     */
    public int writeError(Object context, long flags, long len, long buf, long data, long tag, long olen, int err,
                          int provErrno, byte[] errData) {
        return put(false, context, flags, len, buf, data, tag, Fabrics.ADDR_NOTAVAIL, olen, normaliseErr(err), provErrno,
                errData);
    }

    /** As {@link #writeError}, filling a slot promised by {@link #tryReserve()} when {@code reserved}. */
    public int writeError(boolean reserved, Object context, long flags, long len, long buf, long data, long tag,
                          long olen, int err, int provErrno, byte[] errData) {
        return put(reserved, context, flags, len, buf, data, tag, Fabrics.ADDR_NOTAVAIL, olen, normaliseErr(err),
                provErrno, errData);
    }

    /**
     * FI_SOURCE_ERR: a message from a sender not in the AV. The read returns -EAVAIL, and readError gives
     * err = EADDRNOTAVAIL with the sender's raw address in errData (fi_cq(3)).
     */
    public int writeSourceError(Object context, long flags, long len, long buf, long data, long tag, byte[] rawSrc) {
        return writeSourceError(false, context, flags, len, buf, data, tag, rawSrc);
    }

    /** As {@link #writeSourceError(Object, long, long, long, long, long, byte[])}, filling a promised slot when {@code reserved}. */
    public int writeSourceError(boolean reserved, Object context, long flags, long len, long buf, long data, long tag,
                                byte[] rawSrc) {
        return put(reserved, context, flags, len, buf, data, tag, Fabrics.ADDR_NOTAVAIL, 0, Errno.EADDRNOTAVAIL, 0,
                rawSrc);
    }

    /** Short error form: context, flags, err (e.g. ECANCELED for a cancelled receive). */
    public int writeError(Object context, long flags, int err) {
        return put(false, context, flags, 0, 0, 0, 0, Fabrics.ADDR_NOTAVAIL, 0, normaliseErr(err), 0, null);
    }

    private int put(boolean fromReservation, Object context, long flags, long len, long buf, long data, long tag,
                    long srcAddr, long olen, int err, int provErrno, byte[] errData) {
        ReentrantLock lock = takeUnlessHeld(writeLock);
        try {
            if (overrun) {
                lost++;
                if (fromReservation) {
                    releaseSlots(1);
                }
                return -Errno.EOVERRUN;
            }
            if (!fromReservation && !claimSlot()) {
                lost++;
                overrun = true;
                recordOverrun();
                waiters.wake(progress);
                notifyWaitSet();
                return -Errno.EOVERRUN;
            }
            long t = tail;
            CqErrEntry s = slots[(int) t & mask];
            s.context = context;
            s.flags = flags;
            s.len = len;
            s.buf = buf;
            s.data = data;
            s.tag = tag;
            s.srcAddr = srcAddr;
            s.olen = olen;
            s.err = err;
            // a provider without a finer code of its own reports the errno, so strerror(prov_errno) names it
            s.provErrno = provErrno == 0 ? err : provErrno;
            s.errData = errData;
            if (serialized) {
                // the reader runs in a call serialised after this one: ordering the slot is all that is needed
                TAIL.setRelease(this, t + 1);
            } else {
                // Volatile store: orders the slot before the tail and against the sleepers read (Dekker with sread).
                tail = t + 1;
            }
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
        waiters.wake(progress);
        notifyWaitSet();
        if (err != 0) {
            recordError(context, flags, len, olen, err, provErrno == 0 ? err : provErrno);
        }
        return 0;
    }

    private static final EventGate ERRORS = new EventGate(OperationErrorEvent.class);
    private static final EventGate OVERRUNS = new EventGate(CqOverrunEvent.class);

    private static void recordError(Object context, long flags, long len, long olen, int err, int provErrno) {
        if (!ERRORS.isRecorded()) {
            return;
        }
        OperationErrorEvent e = new OperationErrorEvent();
        if (e.shouldCommit()) {
            e.err = err;
            e.errName = Errno.name(err);
            e.provErrno = provErrno;
            e.flags = OpFlags.toString(flags);
            e.len = len;
            e.olen = olen;
            e.context = String.valueOf(context);
            e.commit();
        }
    }

    private void recordOverrun() {
        if (!OVERRUNS.isRecorded()) {
            return;
        }
        CqOverrunEvent e = new CqOverrunEvent();
        if (e.shouldCommit()) {
            e.capacity = capacity;
            e.cq = toString();
            e.commit();
        }
    }

    private static int normaliseErr(int err) {
        int e = Math.abs(err);
        return e == 0 ? Errno.EOTHER : e;
    }

    // ---- application side: reads -----------------------------------------------------------------

    @Override
    public int read(CqEntry[] entries, int count) {
        return readInternal(entries, count, false);
    }

    @Override
    public int read(CqEntry entry) {
        if (entry == null) {
            return -Errno.EINVAL;
        }
        if (progressUnderReadLock) {
            readLock.lock();
            try {
                progress.progress();
                return readOne(entry, false);
            } finally {
                readLock.unlock();
            }
        }
        progress.progress();
        return readOne(entry, false);
    }

    @Override
    public int readFrom(CqEntry[] entries, int count) {
        return readInternal(entries, count, true);
    }

    private int readInternal(CqEntry[] entries, int count, boolean from) {
        if (progressUnderReadLock) {
            readLock.lock();
            try {
                return progressAndRead(entries, count, from);
            } finally {
                readLock.unlock();
            }
        }
        return progressAndRead(entries, count, from);
    }

    /** Under the read lock where it is the provider's own guard, which the drain below then does not take again. */
    private int progressAndRead(CqEntry[] entries, int count, boolean from) {
        progress.progress();
        if (count == 0) {
            return 0;
        }
        if (entries == null || count < 0 || count > entries.length) {
            return -Errno.EINVAL;
        }
        if (emptyForReader()) {
            return -Errno.EAGAIN;
        }
        ReentrantLock lock = takeUnlessHeld(readLock);
        try {
            long h = head;
            long t = (long) TAIL.getAcquire(this);
            if (h == t) {
                return overrun ? -Errno.EAVAIL : -Errno.EAGAIN;
            }
            int n = 0;
            while (n < count && h != t) {
                CqErrEntry s = slots[(int) h & mask];
                if (s.err != 0) {
                    break;
                }
                CqEntry out = entries[n];
                if (out == null) {
                    // A hole in the caller's array: return what was read, or refuse the call.
                    if (n == 0) {
                        return -Errno.EINVAL;
                    }
                    break;
                }
                copyOut(s, out, from);
                h++;
                n++;
            }
            if (n == 0) {
                return -Errno.EAVAIL;
            }
            HEAD.setRelease(this, h);
            releaseSlots(n);
            return n;
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    private int readOne(CqEntry entry, boolean from) {
        if (emptyForReader()) {
            return -Errno.EAGAIN;
        }
        ReentrantLock lock = takeUnlessHeld(readLock);
        try {
            long h = head;
            if (h == (long) TAIL.getAcquire(this)) {
                return overrun ? -Errno.EAVAIL : -Errno.EAGAIN;
            }
            CqErrEntry s = slots[(int) h & mask];
            if (s.err != 0) {
                return -Errno.EAVAIL;
            }
            copyOut(s, entry, from);
            HEAD.setRelease(this, h + 1);
            releaseSlots(1);
            return 1;
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    private void copyOut(CqErrEntry s, CqEntry out, boolean from) {
        out.context = s.context;
        switch (format) {
            case TAGGED -> {
                out.flags = s.flags;
                out.len = s.len;
                out.buf = s.buf;
                out.data = s.data;
                out.tag = s.tag;
            }
            case DATA -> {
                out.flags = s.flags;
                out.len = s.len;
                out.buf = s.buf;
                out.data = s.data;
                out.tag = 0;
            }
            case MSG -> {
                out.flags = s.flags;
                out.len = s.len;
                out.buf = 0;
                out.data = 0;
                out.tag = 0;
            }
            default -> {
                out.flags = 0;
                out.len = 0;
                out.buf = 0;
                out.data = 0;
                out.tag = 0;
            }
        }
        out.srcAddr = from ? s.srcAddr : Fabrics.ADDR_NOTAVAIL;
        // Drop references so the ring does not keep application contexts alive.
        s.context = null;
        s.errData = null;
    }

    @Override
    public int readError(CqErrEntry entry, long flags) {
        if (entry == null) {
            return -Errno.EINVAL;
        }
        ReentrantLock lock = takeUnlessHeld(readLock);
        try {
            long h = head;
            if (h == (long) TAIL.getAcquire(this)) {
                if (overrun) {
                    entry.setError(null, 0, 0, 0, Errno.EOVERRUN, 0);
                    entry.data = lost;
                    entry.srcAddr = Fabrics.ADDR_NOTAVAIL;
                    return 1;
                }
                return -Errno.EAGAIN;
            }
            CqErrEntry s = slots[(int) h & mask];
            if (s.err == 0) {
                return -Errno.EAGAIN;
            }
            entry.copyFrom(s);
            s.context = null;
            s.errData = null;
            HEAD.setRelease(this, h + 1);
            releaseSlots(1);
            return 1;
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    // ---- blocking reads --------------------------------------------------------------------------

    @Override
    public int sread(CqEntry[] entries, int count, int timeoutMillis) {
        return sreadInternal(entries, count, timeoutMillis, false);
    }

    @Override
    public int sreadFrom(CqEntry[] entries, int count, int timeoutMillis) {
        return sreadInternal(entries, count, timeoutMillis, true);
    }

    private int sreadInternal(CqEntry[] entries, int count, int timeoutMillis, boolean from) {
        if (attr.waitObj == WaitObj.NONE) {
            return -Errno.ENOSYS;
        }
        long deadline = timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000L;
        int signalSeen = signals.get();
        for (;;) {
            long epoch = waiters.epoch();
            int rc = readInternal(entries, count, from);
            if (rc != -Errno.EAGAIN || count == 0) {
                if (rc > 0 && waiters.hasWaiters() && !isEmptyForReader()) {
                    waiters.wake(progress); // entries left: pass them on to the next waiter
                }
                return rc;
            }
            if (signals.get() != signalSeen || isClosed()) {
                return -Errno.EAGAIN;
            }
            long remaining = timeoutMillis < 0 ? Long.MAX_VALUE : deadline - System.nanoTime();
            if (remaining <= 0) {
                return -Errno.EAGAIN;
            }
            if (!waiters.await(readable, progress, epoch, remaining)) {
                return -Errno.EINTR;
            }
        }
    }

    // ---- Waitable: wait sets, poll sets, trywait --------------------------------------------------

    @Override
    public ProgressHook progressHook() {
        return progress;
    }

    /** Whether a read would find an entry (or the overrun error) now, without driving progress. */
    @Override
    public boolean hasEvents() {
        return !isEmptyForReader();
    }

    @Override
    public WaitObj waitObj() {
        return attr.waitObj;
    }

    private void notifyWaitSet() {
        UtilWaitSet set = waitSet;
        if (set != null) {
            set.memberEvent();
        }
    }

    /**
     * Nothing to read and not overrun, checked without the read lock: a reader spinning on an empty CQ then
     * takes no lock at all. Only ever answers EAGAIN, which is right at the moment of the check.
     */
    private boolean emptyForReader() {
        return (long) TAIL.getAcquire(this) == head && !overrun;
    }

    private boolean isEmptyForReader() {
        return tail == head && !overrun;
    }

    @Override
    public void signal() {
        signals.incrementAndGet();
        waiters.wakeAll(progress);
    }

    @Override
    protected void doClose() {
        signal();
        if (waitSet != null) {
            waitSet.leave(this);
        }
    }

    @Override
    public String toString() {
        return "UtilCompletionQueue[format=" + format + ", capacity=" + capacity + ", queued=" + size()
                + ", reserved=" + reservations() + (overrun ? ", OVERRUN lost=" + lost : "") + "]";
    }
}
