package io.jfabric.provider.libfabric;

import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.OpFlags;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;
import io.jfabric.provider.libfabric.ffi.generated.fi_eq_cm_entry;
import io.jfabric.provider.libfabric.ffi.generated.fi_eq_entry;
import io.jfabric.provider.libfabric.ffi.generated.fi_eq_err_entry;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_eq;
import io.jfabric.util.UtilWaitSet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Mirrors {@code struct fid_eq} of a native provider. Connection events ({@code fi_eq_cm_entry}) are
 * decoded into an {@link EqEntry}: the native fid becomes the bridged Endpoint or PassiveEndpoint,
 * a CONNREQ's native info becomes a {@link FabricInfo} whose handle accepts or rejects it, and the
 * connection data is copied out. Contexts of application-written events travel as small ids.
 *
 * <p>Difference: {@link #writeError} is not offered, because libfabric's fi_eq_write has no public
 * way to insert an error entry. It is {@link WaitableFid}: it joins a jfabric wait set (FI_WAIT_SET).
 */
final class LibfabricEq extends WaitableFid implements EventQueue {
    /** Room for a CM entry plus connection data (libfabric's tcp allows 256 bytes of CM data). */
    private static final long BUF_SIZE = 16 + 1024;

    private final EqAttr attr;
    private final MemorySegment event;
    private final MemorySegment buf;
    private final MemorySegment errEntry;
    private final MemorySegment readFn;
    private final MemorySegment readerrFn;
    private final MemorySegment writeFn;
    private final ConcurrentHashMap<Long, Object> written = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong(1);

    /** @param set the wait set to join (FI_WAIT_SET), or null */
    LibfabricEq(LibfabricFabric fabric, MemorySegment fid, EqAttr attr, UtilWaitSet set) {
        super(fabric, fid, attr.waitObj);
        hold(fabric);
        this.attr = attr;
        this.event = arena.allocate(ValueLayout.JAVA_INT);
        this.buf = arena.allocate(BUF_SIZE, 8);
        this.errEntry = fi_eq_err_entry.allocate(arena);
        readFn = FabricInline.eqOp(fid, fi_ops_eq.read$offset());
        readerrFn = FabricInline.eqOp(fid, fi_ops_eq.readerr$offset());
        writeFn = FabricInline.eqOp(fid, fi_ops_eq.write$offset());
        joinWaitSet(set);
    }

    @Override
    String kind() {
        return "event queue";
    }

    @Override
    public EqAttr attr() {
        return attr;
    }

    @Override
    public synchronized int read(EqEntry entry, long flags) {
        if (isClosed()) {
            return -Errno.EBADF;
        }
        if (readFn.address() == 0) {
            return -Errno.ENOSYS;
        }
        // providers write only part of an entry for some events; stale bytes must never look like a pointer
        buf.asSlice(0, fi_eq_err_entry.sizeof()).fill((byte) 0);
        long rc = fi_ops_eq.read.invoke(readFn, fid, event, buf, BUF_SIZE, flags);
        return rc < 0 ? (int) rc : decode(entry, rc, flags);
    }

    /** fi_eq_sread as a {@link PollingWait}: native reads until an event or the timeout. */
    @Override
    public int sread(EqEntry entry, int timeoutMillis, long flags) {
        PollingWait wait = new PollingWait(timeoutMillis);
        for (;;) {
            int rc = read(entry, flags);
            if (rc != -Errno.EAGAIN || !wait.pause(this)) {
                return rc;
            }
        }
    }

    private int decode(EqEntry e, long len, long flags) {
        int ev = event.get(ValueLayout.JAVA_INT, 0);
        boolean peek = (flags & OpFlags.PEEK) != 0;
        if (ev == EqEvent.CONNREQ || ev == EqEvent.CONNECTED || ev == EqEvent.SHUTDOWN) {
            Object fidObj = fabric.lookup(fi_eq_cm_entry.fid(buf).address());
            // only a CONNREQ carries an info (fi_eq(3)); whatever else sits there is not ours to free
            MemorySegment ni = ev == EqEvent.CONNREQ && len >= fi_eq_cm_entry.data$offset()
                    ? fi_eq_cm_entry.info(buf) : MemorySegment.NULL;
            FabricInfo info = null;
            if (ni.address() != 0) {
                info = InfoMapper.toJava(ni);
                if (info.fabricAttr != null && info.fabricAttr.provName == null) {
                    // some providers (1.17 sockets) leave prov_name out of a CONNREQ's info; it is the fabric's
                    FabricInfo own = fabric.info();
                    info.fabricAttr.provName = own.fabricAttr == null ? null : own.fabricAttr.provName;
                }
                if (!peek) {
                    Fabric_h.fi_freeinfo(ni);
                }
            }
            long dataLen = len - fi_eq_cm_entry.data$offset();
            byte[] cm = dataLen > 0
                    ? buf.asSlice(fi_eq_cm_entry.data$offset(), dataLen).toArray(ValueLayout.JAVA_BYTE) : null;
            Object ctx = fidObj instanceof LibfabricEndpoint ep ? ep.context : null;
            e.set(ev, fidObj, ctx, 0, info, cm);
        } else {
            Object fidObj = fabric.lookup(fi_eq_entry.fid(buf).address());
            long c = fi_eq_entry.context(buf).address();
            Object ctx = peek ? written.get(c) : written.remove(c);
            e.set(ev, fidObj, ctx, fi_eq_entry.data(buf), null, null);
        }
        return ev;
    }

    @Override
    public synchronized int readError(EqErrEntry e, long flags) {
        if (isClosed()) {
            return -Errno.EBADF;
        }
        if (readerrFn.address() == 0) {
            return -Errno.ENOSYS;
        }
        errEntry.fill((byte) 0);
        long rc = fi_ops_eq.readerr.invoke(readerrFn, fid, errEntry, flags);
        if (rc < 0) {
            return (int) rc;
        }
        Object fidObj = fabric.lookup(fi_eq_err_entry.fid(errEntry).address());
        long c = fi_eq_err_entry.context(errEntry).address();
        Object ctx = written.containsKey(c) ? written.remove(c)
                : fidObj instanceof LibfabricEndpoint ep ? ep.context : null;
        long size = fi_eq_err_entry.err_data_size(errEntry);
        MemorySegment d = fi_eq_err_entry.err_data(errEntry);
        byte[] data = size > 0 && d.address() != 0 ? d.reinterpret(size).toArray(ValueLayout.JAVA_BYTE) : null;
        e.set(fidObj, ctx, fi_eq_err_entry.data(errEntry), Math.abs(fi_eq_err_entry.err(errEntry)),
                fi_eq_err_entry.prov_errno(errEntry), data);
        return 1;
    }

    @Override
    public synchronized void write(EqEntry entry, long flags) {
        checkOpen();
        if (writeFn.address() == 0) {
            throw ReturnCodes.failure(-Errno.ENOSYS, "fi_eq_write", "this native provider's EQ is read-only");
        }
        long id = 0;
        if (entry.context != null) {
            id = nextId.getAndIncrement();
            written.put(id, entry.context);
        }
        MemorySegment e = buf.asSlice(0, fi_eq_entry.sizeof());
        fi_eq_entry.fid(e, entry.fid instanceof FidObject n ? n.fid : MemorySegment.NULL);
        fi_eq_entry.context(e, MemorySegment.ofAddress(id));
        fi_eq_entry.data(e, entry.data);
        long rc = fi_ops_eq.write.invoke(writeFn, fid, entry.event, e, fi_eq_entry.sizeof(), flags);
        if (rc < 0) {
            written.remove(id);
            ReturnCodes.check(rc, "fi_eq_write", "the EQ may be full; read events first");
        }
    }

    /**
     * A native context for an operation that reports on this EQ (an FI_EVENT fi_av_insert): the event or error
     * entry carrying it maps back to {@code context}. 0 (a null context) when there is none.
     */
    long contextId(Object context) {
        if (context == null) {
            return 0;
        }
        long id = nextId.getAndIncrement();
        written.put(id, context);
        return id;
    }

    /** Forgets a context id whose operation failed before it could report. */
    void forgetContext(long id) {
        written.remove(id);
    }

    @Override
    public void writeError(EqErrEntry entry, long flags) {
        throw new FabricException(Errno.ENOSYS, "libfabric's fi_eq_write cannot insert error entries; "
                + "use a jfabric provider's EQ for that");
    }

    @Override
    public String strerror(int provErrno, byte[] errData) {
        return ReturnCodes.strerror(provErrno);
    }

    // ---- Waitable: wait sets, poll sets, trywait --------------------------------------------------

    /** An FI_PEEK read, which leaves the event (a CONNREQ's info too) for the application's read. */
    @Override
    synchronized boolean peek() {
        if (isClosed() || readFn.address() == 0) {
            return false;
        }
        long rc = fi_ops_eq.read.invoke(readFn, fid, event, buf, BUF_SIZE, OpFlags.PEEK);
        return rc >= 0 || rc == -Errno.EAVAIL;
    }
}
