package io.jfabric.provider.verbs;

import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.OpFlags;
import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.provider.verbs.ffi.poll_h;
import io.jfabric.provider.verbs.ffi.pollfd;
import io.jfabric.provider.verbs.ffi.rdma_cm_event;
import io.jfabric.provider.verbs.ffi.rdma_cma_h;
import io.jfabric.provider.verbs.ffi.rdma_event_channel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Mirrors libfabric's verbs EQ: an {@code fi_eq} that owns an rdma_cm event channel. Reads drive
 * progress: the channel's fd is polled, and each rdma_cm event is handed to the endpoint that owns its
 * cm_id, which turns it into CONNREQ / CONNECTED / SHUTDOWN entries or error entries here. Blocking
 * reads poll(2) the fd, so they sleep. Control-path object: methods are synchronized.
 */
final class VerbsEventQueue implements EventQueue {
    private static final System.Logger LOG = System.getLogger("jfabric.verbs");
    /** Longest single sleep in sread, so {@link #close} and user writes are noticed. */
    private static final int SLEEP_SLICE_MS = 100;

    private final VerbsFabric fabric;
    private final EqAttr attr;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = NativeLibrary.allocateCaptureState(arena);
    private final MemorySegment channel;
    private final MemorySegment pollFd;
    private final MemorySegment eventOut;
    private final ArrayDeque<Object> queue = new ArrayDeque<>(); // EqEntry or EqErrEntry, in order
    private final Map<Long, CmEventListener> listeners = new HashMap<>();
    private boolean closed;

    VerbsEventQueue(VerbsFabric fabric, EqAttr attr) {
        this.fabric = fabric;
        this.attr = attr == null ? EqAttr.defaults() : attr;
        channel = rdma_event_channel.reinterpret(Native.checkPtr(rdma_cma_h.rdma_create_event_channel(errno), errno,
                "rdma_create_event_channel (is rdma_ucm loaded and /dev/infiniband/rdma_cm readable?)"));
        pollFd = pollfd.allocate(arena);
        pollfd.fd(pollFd, rdma_event_channel.fd(channel));
        pollfd.events(pollFd, (short) poll_h.POLLIN);
        eventOut = arena.allocate(ValueLayout.ADDRESS);
    }

    MemorySegment channel() {
        return channel;
    }

    synchronized void register(MemorySegment id, CmEventListener l) {
        listeners.put(id.address(), l);
    }

    synchronized void unregister(MemorySegment id) {
        listeners.remove(id.address());
    }

    synchronized void add(EqEntry e) {
        queue.add(e);
        notifyAll();
    }

    synchronized void addError(EqErrEntry e) {
        queue.add(e);
        notifyAll();
    }

    @Override
    public EqAttr attr() {
        return attr;
    }

    @Override
    public synchronized int read(EqEntry entry, long flags) {
        progress(0);
        return take(entry, flags);
    }

    private int take(EqEntry entry, long flags) {
        Object head = queue.peek();
        if (head == null) {
            return -Errno.EAGAIN;
        }
        if (head instanceof EqErrEntry) {
            return -Errno.EAVAIL;
        }
        EqEntry e = (EqEntry) head;
        entry.copyFrom(e);
        if ((flags & OpFlags.PEEK) == 0) {
            queue.poll();
        }
        return e.event;
    }

    @Override
    public synchronized int readError(EqErrEntry entry, long flags) {
        progress(0);
        if (!(queue.peek() instanceof EqErrEntry e)) {
            return -Errno.EAGAIN;
        }
        entry.copyFrom(e);
        if ((flags & OpFlags.PEEK) == 0) {
            queue.poll();
        }
        return 1;
    }

    @Override
    public synchronized int sread(EqEntry entry, int timeoutMillis, long flags) {
        long deadline = timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000L;
        while (true) {
            progress(0);
            if (!queue.isEmpty()) {
                return take(entry, flags);
            }
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (closed || left <= 0) {
                return -Errno.EAGAIN;
            }
            progress((int) Math.min(left, SLEEP_SLICE_MS));
        }
    }

    @Override
    public synchronized void write(EqEntry entry, long flags) {
        EqEntry c = new EqEntry();
        c.copyFrom(entry);
        add(c);
    }

    @Override
    public synchronized void writeError(EqErrEntry entry, long flags) {
        EqErrEntry c = new EqErrEntry();
        c.copyFrom(entry);
        addError(c);
    }

    /** Handles every pending rdma_cm event, waiting up to {@code waitMs} for the first one. */
    synchronized void progress(int waitMs) {
        if (closed) {
            return;
        }
        int wait = waitMs;
        while (true) {
            pollfd.revents(pollFd, (short) 0);
            int n = poll_h.poll(errno, pollFd, 1, wait);
            if (n <= 0 || (pollfd.revents(pollFd) & poll_h.POLLIN) == 0) {
                return;
            }
            wait = 0;
            if (rdma_cma_h.rdma_get_cm_event(errno, channel, eventOut) != 0) {
                LOG.log(System.Logger.Level.WARNING, "rdma_get_cm_event failed: "
                        + Native.strerror(NativeLibrary.errno(errno)));
                return;
            }
            MemorySegment ev = rdma_cm_event.reinterpret(eventOut.get(ValueLayout.ADDRESS, 0));
            dispatch(ev);
        }
    }

    private void dispatch(MemorySegment ev) {
        int type = rdma_cm_event.event(ev);
        int status = rdma_cm_event.status(ev);
        MemorySegment id = rdma_cm_event.id(ev);
        MemorySegment listenId = rdma_cm_event.listen_id(ev);
        byte[] data = privateData(ev);
        rdma_cma_h.rdma_ack_cm_event(errno, ev);
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "rdma_cm event " + NativeLibrary.string(rdma_cma_h.rdma_event_str(errno, type))
                    + " status " + status + " id 0x" + Long.toHexString(id.address()));
        }
        CmEventListener l = listeners.get(type == rdma_cma_h.RDMA_CM_EVENT_CONNECT_REQUEST
                ? listenId.address() : id.address());
        if (l != null) {
            l.onCmEvent(type, status, id, data);
        } else if (type == rdma_cma_h.RDMA_CM_EVENT_CONNECT_REQUEST) {
            // the listener is gone: refuse, so the peer is not left waiting
            rdma_cma_h.rdma_reject(errno, id, MemorySegment.NULL, (byte) 0);
            rdma_cma_h.rdma_destroy_id(errno, id);
        }
    }

    /** The user part of the event's private data: byte 0 holds its length, as libfabric's verbs sends it. */
    private static byte[] privateData(MemorySegment ev) {
        MemorySegment p = rdma_cm_event.param_conn_private_data(ev);
        int len = Byte.toUnsignedInt(rdma_cm_event.param_conn_private_data_len(ev));
        if (Native.isNull(p) || len == 0) {
            return null;
        }
        MemorySegment d = p.reinterpret(len);
        int n = Math.min(Byte.toUnsignedInt(d.get(ValueLayout.JAVA_BYTE, 0)), len - 1);
        return n == 0 ? null : d.asSlice(1, n).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Writes {@code data} behind a one-byte length into {@code dst}; returns the bytes used. */
    static int encodePrivateData(byte[] data, MemorySegment dst) {
        int n = data == null ? 0 : Math.min(data.length, VerbsInfos.CM_DATA_SIZE);
        dst.set(ValueLayout.JAVA_BYTE, 0, (byte) n);
        if (n > 0) {
            MemorySegment.copy(data, 0, dst, ValueLayout.JAVA_BYTE, 1, n);
        }
        return n + 1;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (!listeners.isEmpty()) {
            throw new FabricException(Errno.EBUSY, "EQ still has " + listeners.size()
                    + " endpoint(s) bound; close them first");
        }
        closed = true;
        rdma_cma_h.rdma_destroy_event_channel(errno, channel);
        fabric.childClosed();
        notifyAll();
        arena.close();
    }
}
