package io.jfabric.provider.verbs;

import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.provider.verbs.ffi.generated.pollfd;
import io.jfabric.provider.verbs.ffi.generated.rdma_cm_event;
import io.jfabric.provider.verbs.ffi.generated.rdma_event_channel;
import io.jfabric.provider.verbs.ffi.poll_h;
import io.jfabric.provider.verbs.ffi.rdma_cma_h;
import io.jfabric.util.FabricLog;
import io.jfabric.util.ProgressHook;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An EQ's rdma_cm event channel and the progress that reads it: each event goes to the {@link Listener} that
 * owns its cm_id (a connection request to the listening passive endpoint's), which posts the EQ entries.
 * Blocking reads sleep in poll(2) on the channel's fd, in slices of {@value #BLOCK_SLICE_MS} ms, so a wakeup
 * or a close is seen within one slice.
 */
final class VerbsCmChannel implements ProgressHook {
    private static final System.Logger LOG = FabricLog.logger("verbs");
    private static final int BLOCK_SLICE_MS = 50;

    /** Something that owns an rdma_cm id and reacts to its events (an endpoint's CM or a passive endpoint). */
    interface Listener {
        /**
         * One rdma_cm event for this listener's id. {@code id} is the event's id (for a connection request,
         * the new id; the listener is then the listening passive endpoint). {@code privateData} is the
         * user part of the event's private data (the length header removed), or null.
         */
        void onCmEvent(int event, int status, MemorySegment id, byte[] privateData);
    }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment errno = NativeLibrary.allocateCaptureState(arena);
    private final MemorySegment channel;
    private final MemorySegment pollFd;
    private final MemorySegment eventOut;
    private final Map<Long, Listener> listeners = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean woken;
    private boolean closed;

    VerbsCmChannel() {
        channel = rdma_event_channel.reinterpret(Native.checkPtr(rdma_cma_h.rdma_create_event_channel(errno),
                errno, "rdma_create_event_channel (is rdma_ucm loaded and /dev/infiniband/rdma_cm accessible?)"));
        pollFd = pollfd.allocate(arena);
        pollfd.fd(pollFd, rdma_event_channel.fd(channel));
        pollfd.events(pollFd, (short) poll_h.POLLIN);
        eventOut = arena.allocate(ValueLayout.ADDRESS);
    }

    /** The {@code rdma_event_channel} that cm_ids are created on or migrated to. */
    MemorySegment handle() {
        return channel;
    }

    void register(MemorySegment id, Listener l) {
        listeners.put(id.address(), l);
    }

    /** False when {@code id} was not registered. */
    boolean unregister(MemorySegment id) {
        return listeners.remove(id.address()) != null;
    }

    @Override
    public int progress() {
        if (!lock.tryLock()) {
            return 0; // another thread is reading the channel
        }
        try {
            int handled = 0;
            while (!closed && readable(0)) {
                if (rdma_cma_h.rdma_get_cm_event(errno, channel, eventOut) != 0) {
                    LOG.log(System.Logger.Level.WARNING, "rdma_get_cm_event failed: "
                            + Native.strerror(NativeLibrary.errno(errno)));
                    break;
                }
                dispatch(rdma_cm_event.reinterpret(eventOut.get(ValueLayout.ADDRESS, 0)));
                handled++;
            }
            return handled;
        } finally {
            lock.unlock();
        }
    }

    private boolean readable(int timeoutMs) {
        pollfd.revents(pollFd, (short) 0);
        return poll_h.poll(errno, pollFd, 1, timeoutMs) > 0 && (pollfd.revents(pollFd) & poll_h.POLLIN) != 0;
    }

    @Override
    public boolean canBlock() {
        return true;
    }

    @Override
    public void block(long nanos) {
        woken = false;
        long deadline = System.nanoTime() + nanos;
        while (!woken && !closed) {
            long ms = Math.min(BLOCK_SLICE_MS, Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
            if (lock.tryLock()) {
                try {
                    if (closed || readable((int) ms)) {
                        return;
                    }
                } finally {
                    lock.unlock();
                }
            } else {
                LockSupport.parkNanos(ms * 1_000_000L);
            }
            if (System.nanoTime() >= deadline) {
                return;
            }
        }
    }

    @Override
    public void wakeup() {
        woken = true;
    }

    private void dispatch(MemorySegment ev) {
        int type = rdma_cm_event.event(ev);
        int status = rdma_cm_event.status(ev);
        MemorySegment id = rdma_cm_event.id(ev);
        MemorySegment listenId = rdma_cm_event.listen_id(ev);
        byte[] data = privateData(ev);
        // ack at once: the private data is copied, and rdma_destroy_id waits for unacked events
        rdma_cma_h.rdma_ack_cm_event(errno, ev);
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "rdma_cm event " + NativeLibrary.string(
                    rdma_cma_h.rdma_event_str(errno, type)) + " status " + status + " id 0x"
                    + Long.toHexString(id.address()));
        }
        boolean request = type == rdma_cma_h.RDMA_CM_EVENT_CONNECT_REQUEST;
        Listener l = listeners.get(request ? listenId.address() : id.address());
        if (l != null) {
            l.onCmEvent(type, status, id, data);
        } else if (request) {
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

    void close() {
        lock.lock();
        try {
            closed = true;
            rdma_cma_h.rdma_destroy_event_channel(errno, channel);
        } finally {
            lock.unlock();
        }
        arena.close();
    }
}
