package io.jfabric.provider.verbs;

import io.jfabric.Errno;
import io.jfabric.provider.verbs.ffi.NativeLibrary;
import io.jfabric.provider.verbs.ffi.generated.ibv_async_event;
import io.jfabric.provider.verbs.ffi.generated.ibv_context;
import io.jfabric.provider.verbs.ffi.poll_h;
import io.jfabric.provider.verbs.ffi.generated.pollfd;
import io.jfabric.provider.verbs.ffi.verbs_h;
import io.jfabric.util.FabricLog;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A device's asynchronous events ({@code ibv_get_async_event}): QP errors, port state changes, device
 * failure. One daemon thread per device that has a domain open sleeps in poll(2) on the context's
 * async fd; events are logged and surfaced as EQ error entries on the endpoints they hit (a QP error on
 * its endpoint; port down and device failure on every endpoint of the device). The QP's posted
 * operations are flushed by the hardware, so they also complete with errors.
 */
final class AsyncEvents {
    private static final System.Logger LOG = FabricLog.logger("verbs");
    private static final Map<Long, AsyncEvents> BY_CONTEXT = new ConcurrentHashMap<>();

    private final VerbsDevice device;
    /** The connections of this device's endpoints by QP address, for QP events. */
    private final Map<Long, VerbsCm> endpoints = new ConcurrentHashMap<>();

    private AsyncEvents(VerbsDevice device) {
        this.device = device;
        Thread t = new Thread(this::loop, "jfabric-verbs-async-" + device.name());
        t.setDaemon(true);
        t.start();
    }

    /** The watcher of {@code device}, started on first use; it lives as long as the process, as the context. */
    static AsyncEvents of(VerbsDevice device) {
        return BY_CONTEXT.computeIfAbsent(device.context().address(), a -> new AsyncEvents(device));
    }

    void add(MemorySegment qp, VerbsCm ep) {
        endpoints.put(qp.address(), ep);
    }

    void remove(MemorySegment qp) {
        endpoints.remove(qp.address());
    }

    private void loop() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ctx = ibv_context.reinterpret(device.context());
            MemorySegment errno = NativeLibrary.allocateCaptureState(arena);
            MemorySegment pfd = pollfd.allocate(arena);
            pollfd.fd(pfd, ibv_context.async_fd(ctx));
            pollfd.events(pfd, (short) poll_h.POLLIN);
            MemorySegment event = ibv_async_event.allocate(arena);
            while (true) {
                pollfd.revents(pfd, (short) 0);
                int n = poll_h.poll(errno, pfd, 1, -1);
                if (n < 0 && NativeLibrary.errno(errno) != Errno.EINTR) {
                    LOG.log(System.Logger.Level.WARNING, "poll on " + device.name() + "'s async fd failed: "
                            + Native.strerror(NativeLibrary.errno(errno)) + "; async events are no longer watched");
                    return;
                }
                if (n <= 0 || verbs_h.ibv_get_async_event(ctx, event) != 0) {
                    continue;
                }
                int type = ibv_async_event.event_type(event);
                long element = ibv_async_event.element(event).address();
                verbs_h.ibv_ack_async_event(event);
                handle(type, element);
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.log(System.Logger.Level.WARNING, "async event watcher of " + device.name() + " stopped", e);
        }
    }

    private void handle(int type, long element) {
        String text = NativeLibrary.string(verbs_h.ibv_event_type_str(type));
        byte[] data = text == null ? null : text.getBytes(StandardCharsets.UTF_8);
        switch (type) {
            case verbs_h.IBV_EVENT_QP_FATAL, verbs_h.IBV_EVENT_QP_REQ_ERR, verbs_h.IBV_EVENT_QP_ACCESS_ERR -> {
                VerbsCm ep = endpoints.get(element);
                LOG.log(System.Logger.Level.WARNING, device.name() + ": " + text + " on " + ep);
                if (ep != null) {
                    ep.asyncError(Errno.EIO, type, data);
                }
            }
            case verbs_h.IBV_EVENT_PORT_ERR, verbs_h.IBV_EVENT_DEVICE_FATAL -> {
                // element holds the port number for port events; every endpoint of the device is affected
                LOG.log(System.Logger.Level.WARNING, device.name() + ": " + text);
                int err = type == verbs_h.IBV_EVENT_PORT_ERR ? Errno.ENETDOWN : Errno.ENODEV;
                for (VerbsCm ep : endpoints.values()) {
                    ep.asyncError(err, type, data);
                }
            }
            case verbs_h.IBV_EVENT_CQ_ERR -> LOG.log(System.Logger.Level.ERROR, device.name() + ": " + text
                    + " (a CQ overran: bind fewer endpoints to it or open it with a larger size)");
            default -> LOG.log(System.Logger.Level.INFO, device.name() + ": " + text);
        }
    }
}
