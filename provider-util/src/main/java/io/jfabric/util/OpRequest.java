package io.jfabric.util;

import io.jfabric.MemoryRegion;
import io.jfabric.RmaIov;

import java.lang.foreign.MemorySegment;

/**
 * One data-path operation, as any of the 27 entry points describes it, in named fields: what
 * {@link UtilEndpoint} hands its provider. A request belongs to one endpoint and the thread that posts, so
 * posting needs no lock and allocates nothing once the thread has posted once. It is valid only during the
 * provider's hook: the provider copies what it keeps (libfabric's entry points likewise own nothing the caller passed but
 * the buffers).
 */
public final class OpRequest {
    /** The thread this request belongs to; final, so a racy read of a cached request is still safe to test. */
    final Thread owner;

    /** The local buffers; for a single-buffer call, a one-element array owned by this request. */
    public MemorySegment[] iov;
    public MemoryRegion[] desc;
    public int count;
    /** The peer: destination of a send or write, source of a receive or read (FI_ADDR_UNSPEC: any). */
    public long peer;
    public long tag;
    /** Tag bits a receive ignores. */
    public long ignore;
    /** Remote CQ data; meaningful when {@link #flags} holds FI_REMOTE_CQ_DATA. */
    public long data;
    public Object context;
    /**
     * The operation's flags: the endpoint's default op_flags for the plain calls, the caller's for the msg
     * forms, plus FI_TAGGED for a tagged call, FI_REMOTE_CQ_DATA for the data calls and FI_INJECT for the
     * inject calls (with {@link #INJECT_CALL}).
     */
    public long flags;
    /**
     * provider-util's own bit in {@link #flags}, never the caller's: the operation came through an fi_inject
     * call, which writes no success completion whatever the binding. fi_sendmsg with FI_INJECT only frees the
     * buffer at once; its completion follows the binding as any other send's (fi_msg(3)).
     */
    public static final long INJECT_CALL = 1L << 62;
    /** The remote ranges of an RMA operation. */
    public RmaIov[] rmaIov;
    public int rmaCount;

    private final MemorySegment[] oneIov = new MemorySegment[1];
    private final MemoryRegion[] oneDesc = new MemoryRegion[1];
    private final RmaIov oneRma = new RmaIov();
    private final RmaIov[] oneRmaIov = {oneRma};

    OpRequest(Thread owner) {
        this.owner = owner;
    }

    /** The sum of the local buffers' sizes (a null buffer counts 0: the provider refuses it with EINVAL). */
    public long length() {
        long n = 0;
        for (int i = 0; i < count; i++) {
            if (iov[i] != null) {
                n += iov[i].byteSize();
            }
        }
        return n;
    }

    OpRequest one(MemorySegment buf, MemoryRegion mr) {
        oneIov[0] = buf;
        oneDesc[0] = mr;
        iov = oneIov;
        desc = oneDesc;
        count = 1;
        rmaIov = null;
        rmaCount = 0;
        return this;
    }

    OpRequest vector(MemorySegment[] segments, MemoryRegion[] mrs, int n) {
        iov = segments;
        desc = mrs;
        count = n;
        rmaIov = null;
        rmaCount = 0;
        return this;
    }

    /** One remote range covering the local buffers, for the non-msg RMA calls. */
    OpRequest remote(long addr, long key) {
        oneRma.set(addr, length(), key);
        rmaIov = oneRmaIov;
        rmaCount = 1;
        return this;
    }

    OpRequest set(long peer, long tag, long ignore, long data, Object context, long flags) {
        this.peer = peer;
        this.tag = tag;
        this.ignore = ignore;
        this.data = data;
        this.context = context;
        this.flags = flags;
        return this;
    }

    /** Drops the references the caller passed, so a request never keeps a buffer or context alive. */
    void clear() {
        oneIov[0] = null;
        oneDesc[0] = null;
        iov = null;
        desc = null;
        context = null;
        rmaIov = null;
    }
}
