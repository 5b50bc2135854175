package io.jfabric.provider.libfabric;

import io.jfabric.Errno;
import io.jfabric.FabricObject;
import io.jfabric.provider.libfabric.ffi.FabricInline;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Base of every bridged object: one native {@code struct fid} plus the arena holding the object's
 * preallocated argument memory. {@link #close()} is {@code fi_close}; libfabric itself refuses to close
 * an object that still has children (-FI_EBUSY), which becomes a FabricException that says so.
 */
abstract class FidObject implements FabricObject {
    /** The native object, readable over its whole struct. */
    final MemorySegment fid;
    /** The same, as the data calls take it (see DataCalls). */
    final long fidAddr;
    /** Argument and result memory owned by this object; freed on close. */
    final Arena arena = Arena.ofShared();
    final LibfabricFabric fabric;
    private volatile boolean closed;
    /** Open objects created from this one or bound to it; close refuses while there are any. */
    private final java.util.concurrent.atomic.AtomicInteger users = new java.util.concurrent.atomic.AtomicInteger();
    /** The objects this one was created from or bound to, released when it closes. */
    private final java.util.List<FidObject> holds = new java.util.ArrayList<>();
    /**
     * The native fi_info this object was opened from, freed only after fi_close: some 1.17 providers keep
     * pointers into it (sockets' fi_passive_ep copies the struct shallowly and reads its attributes again
     * for every CONNREQ), so freeing it right after the open call corrupts the heap later.
     */
    private MemorySegment openedFrom = MemorySegment.NULL;

    FidObject(LibfabricFabric fabric, MemorySegment fid) {
        this.fabric = fabric;
        this.fid = fid;
        this.fidAddr = fid.address();
        if (fabric != null) {
            fabric.register(fid.address(), this);
        }
    }

    /** What this object is, for messages ("endpoint", "completion queue"). */
    abstract String kind();

    boolean isClosed() {
        return closed;
    }

    /**
     * Records that this object uses {@code other} (its parent, or an object bound to it). Native
     * libfabric is not trusted to refuse closing a used object: several 1.17 providers free it anyway
     * and crash on the child's close later, so the libfabric provider refuses first, as jfabric promises.
     */
    void hold(FidObject other) {
        other.users.incrementAndGet();
        synchronized (holds) {
            holds.add(other);
        }
    }

    /** Takes ownership of the native info the object was opened from (see {@link #openedFrom}). */
    void keepOpenedFrom(MemorySegment nativeInfo) {
        openedFrom = nativeInfo;
    }

    /** Frees a native info that no object took (the open failed). */
    static void freeUnlessKept(MemorySegment nativeInfo) {
        if (nativeInfo.address() != 0) {
            io.jfabric.provider.libfabric.ffi.generated.Fabric_h.fi_freeinfo(nativeInfo);
        }
    }

    /** Control calls on a closed object fail here instead of handing libfabric a freed fid. */
    void checkOpen() {
        if (closed) {
            throw new io.jfabric.FabricException(Errno.EBADF, "the " + kind() + " is closed; open a new one");
        }
    }

    /**
     * {@code fi_control(FI_GETWAIT)} into an int: the native descriptor of a FI_WAIT_FD (or FI_WAIT_UNSPEC that
     * libfabric answers with a descriptor) queue, or the negative errno libfabric returns (-FI_ENOSYS without one).
     */
    public int waitFd() {
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment fd = a.allocate(java.lang.foreign.ValueLayout.JAVA_INT);
            fd.set(java.lang.foreign.ValueLayout.JAVA_INT, 0, -1);
            int rc = io.jfabric.provider.libfabric.ffi.FabricInline.fi_control(fid,
                    io.jfabric.provider.libfabric.ffi.generated.Fabric_h.FI_GETWAIT(), fd);
            return rc != 0 ? rc : fd.get(java.lang.foreign.ValueLayout.JAVA_INT, 0);
        }
    }

    /**
     * Hook for subclasses: the object is about to be closed natively (nothing holds it); stop Java-side users of
     * the native object, such as a wait set that would peek at it.
     */
    void closing() {
    }

    /** Hook for subclasses: native close succeeded; release Java-side state. */
    void closed() {
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            int inUse = users.get();
            if (inUse > 0) {
                throw new io.jfabric.FabricException(Errno.EBUSY, "cannot close the " + kind() + ": " + inUse
                        + " open object(s) were opened from it or are bound to it; close those first");
            }
            closing();
            int rc = FabricInline.fi_close(fid);
            if (rc == -Errno.EBUSY) {
                throw ReturnCodes.failure(rc, "fi_close of the " + kind(),
                        "close the objects opened from or bound to it first");
            }
            ReturnCodes.check(rc, "fi_close of the " + kind(), "");
            closed = true;
            if (fabric != null) {
                fabric.unregister(fid.address());
            }
            synchronized (holds) {
                for (FidObject h : holds) {
                    h.users.decrementAndGet();
                }
                holds.clear();
            }
            closed();
            if (openedFrom.address() != 0) {
                io.jfabric.provider.libfabric.ffi.generated.Fabric_h.fi_freeinfo(openedFrom);
                openedFrom = MemorySegment.NULL;
            }
            arena.close();
        }
    }

    /** The native fid of another bridged object, for binds. */
    static MemorySegment fidOf(Object o, String role) {
        if (o instanceof FidObject n && !n.closed) {
            return n.fid;
        }
        throw new io.jfabric.FabricException(Errno.EINVAL, role + " " + o
                + " is not an open object of the libfabric provider; open it from the same libfabric: domain or fabric");
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "@0x" + Long.toHexString(fid.address());
    }
}
