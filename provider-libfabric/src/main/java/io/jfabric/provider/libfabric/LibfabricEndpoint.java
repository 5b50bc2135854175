package io.jfabric.provider.libfabric;

import io.jfabric.AddressVector;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.Endpoint;
import io.jfabric.EndpointOption;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricInfo;
import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.RmaMsg;
import io.jfabric.TaggedMsg;
import io.jfabric.provider.libfabric.ffi.DataCalls;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_ep;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_msg;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_rma;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_tagged;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Mirrors {@code struct fid_ep} of a native provider. Data-path calls go straight to the provider's
 * ops-table functions, read once per control change (open, bind, enable, setopt: the calls after
 * which libfabric lets a provider swap its tables), with FI_CHECK_OP applied: a member the provider
 * lacks returns -ENOSYS. Native segments pass through untouched; contexts travel in the domain's
 * preallocated fi_context2 slots; the iov and *msg forms fill preallocated native arrays. Nothing is
 * allocated per operation.
 *
 * <p>Differences from C: heap segments are refused with -EINVAL (a provider may still be reading the
 * buffer after the call returns), except by the inject calls, which copy them into a native bounce
 * buffer first because inject's data is consumed during the call.
 */
final class LibfabricEndpoint extends FidObject implements Endpoint {
    private static final int MAX_IOV = 16;
    private static final int EAGAIN = -Errno.EAGAIN;
    private static final int EINVAL = -Errno.EINVAL;
    private static final int ENOSYS = -Errno.ENOSYS;

    private final LibfabricDomain domain;
    private final ContextSlots slots;
    final FabricInfo info;
    final Object context;
    private final IovScratch txScratch;
    private final IovScratch rxScratch;
    private final MemorySegment bounce;
    /**
     * The endpoint's inject_size. The bridge refuses longer injects itself (-FI_EMSGSIZE): fi_msg(3) and fi_rma(3)
     * limit inject data to it, but libfabric 1.17's tcp, rxm, shm and rxd send them anyway
     * (provider-libfabric/src/test/c/inject_over_size.c), and jfabric's own providers refuse them.
     */
    private final long injectLimit;
    /**
     * fi_recv and fi_recvv take the endpoint's default rx op_flags (fi_endpoint(3)); when those hold
     * FI_MULTI_RECV (1.17's shm and util providers report it by default for null hints), every receive is
     * a multi-receive buffer whose context stays in use until the FI_MULTI_RECV completion.
     */
    private final boolean recvIsMulti;

    private MemorySegment recv, recvv, recvmsg, send, sendv, sendmsg, inject, senddata, injectdata;
    private MemorySegment trecv, trecvv, trecvmsg, tsend, tsendv, tsendmsg, tinject, tsenddata, tinjectdata;
    private MemorySegment read, readv, readmsg, write, writev, writemsg, rinject, writedata, rinjectdata;
    private MemorySegment cancelFn;

    LibfabricEndpoint(LibfabricDomain domain, MemorySegment fid, FabricInfo info, Object context) {
        super(domain.fabric, fid);
        hold(domain);
        this.domain = domain;
        this.slots = domain.slots;
        this.info = info.copy();
        this.context = context;
        this.txScratch = new IovScratch(arena);
        this.rxScratch = new IovScratch(arena);
        long inj = info.txAttr == null ? 0 : Math.min(info.txAttr.injectSize, 1 << 16);
        this.bounce = arena.allocate(Math.max(inj, 8), 64);
        this.injectLimit = info.txAttr == null ? Long.MAX_VALUE : info.txAttr.injectSize;
        this.recvIsMulti = info.rxAttr != null && (info.rxAttr.opFlags & OpFlags.MULTI_RECV) != 0;
        loadOps();
    }

    @Override
    String kind() {
        return "endpoint";
    }

    /** Reads every data-path function pointer (FI_CHECK_OP); called whenever the provider may swap tables. */
    private void loadOps() {
        recv = FabricInline.msgOp(fid, fi_ops_msg.recv$offset());
        recvv = FabricInline.msgOp(fid, fi_ops_msg.recvv$offset());
        recvmsg = FabricInline.msgOp(fid, fi_ops_msg.recvmsg$offset());
        send = FabricInline.msgOp(fid, fi_ops_msg.send$offset());
        sendv = FabricInline.msgOp(fid, fi_ops_msg.sendv$offset());
        sendmsg = FabricInline.msgOp(fid, fi_ops_msg.sendmsg$offset());
        inject = FabricInline.msgOp(fid, fi_ops_msg.inject$offset());
        senddata = FabricInline.msgOp(fid, fi_ops_msg.senddata$offset());
        injectdata = FabricInline.msgOp(fid, fi_ops_msg.injectdata$offset());
        trecv = FabricInline.taggedOp(fid, fi_ops_tagged.recv$offset());
        trecvv = FabricInline.taggedOp(fid, fi_ops_tagged.recvv$offset());
        trecvmsg = FabricInline.taggedOp(fid, fi_ops_tagged.recvmsg$offset());
        tsend = FabricInline.taggedOp(fid, fi_ops_tagged.send$offset());
        tsendv = FabricInline.taggedOp(fid, fi_ops_tagged.sendv$offset());
        tsendmsg = FabricInline.taggedOp(fid, fi_ops_tagged.sendmsg$offset());
        tinject = FabricInline.taggedOp(fid, fi_ops_tagged.inject$offset());
        tsenddata = FabricInline.taggedOp(fid, fi_ops_tagged.senddata$offset());
        tinjectdata = FabricInline.taggedOp(fid, fi_ops_tagged.injectdata$offset());
        read = FabricInline.rmaOp(fid, fi_ops_rma.read$offset());
        readv = FabricInline.rmaOp(fid, fi_ops_rma.readv$offset());
        readmsg = FabricInline.rmaOp(fid, fi_ops_rma.readmsg$offset());
        write = FabricInline.rmaOp(fid, fi_ops_rma.write$offset());
        writev = FabricInline.rmaOp(fid, fi_ops_rma.writev$offset());
        writemsg = FabricInline.rmaOp(fid, fi_ops_rma.writemsg$offset());
        rinject = FabricInline.rmaOp(fid, fi_ops_rma.inject$offset());
        writedata = FabricInline.rmaOp(fid, fi_ops_rma.writedata$offset());
        rinjectdata = FabricInline.rmaOp(fid, fi_ops_rma.injectdata$offset());
        cancelFn = FabricInline.op(io.jfabric.provider.libfabric.ffi.generated.fid_ep.ops(fid), fi_ops_ep.cancel$offset());
    }

    private static boolean absent(MemorySegment fn) {
        return fn.address() == 0;
    }

    /** What a missing function means: the endpoint is closed (-EBADF) or the provider lacks it (-ENOSYS). */
    private int missing() {
        return isClosed() ? -Errno.EBADF : ENOSYS;
    }

    @Override
    void closed() {
        // later calls must not reach the provider with a freed fid: every pointer reads as missing
        MemorySegment n = MemorySegment.NULL;
        recv = recvv = recvmsg = send = sendv = sendmsg = inject = senddata = injectdata = n;
        trecv = trecvv = trecvmsg = tsend = tsendv = tsendmsg = tinject = tsenddata = tinjectdata = n;
        read = readv = readmsg = write = writev = writemsg = rinject = writedata = rinjectdata = n;
        cancelFn = n;
    }

    // ============================================================== control path

    @Override
    public void bind(CompletionQueue cq, long flags) {
        checkOpen();
        bindFid(cq, flags, "completion queue");
    }

    @Override
    public void bind(EventQueue eq) {
        checkOpen();
        bindFid(eq, 0, "event queue");
    }

    @Override
    public void bind(AddressVector av) {
        checkOpen();
        bindFid(av, 0, "address vector");
    }

    @Override
    public void bind(Counter counter, long flags) {
        checkOpen();
        bindFid(counter, flags, "counter");
    }

    private void bindFid(Object target, long flags, String what) {
        int rc = FabricInline.fi_bind(fid, fidOf(target, what), flags);
        ReturnCodes.check(rc, "fi_ep_bind of a " + what, "bind before fi_enable, with flags the provider accepts");
        hold((FidObject) target);
        loadOps();
    }

    @Override
    public void enable() {
        checkOpen();
        int rc = FabricInline.fi_enable(fid);
        ReturnCodes.check(rc, "fi_enable", "bind the completion queues (and the AV or EQ the endpoint type needs) first");
        loadOps();
    }

    @Override
    public void connect(byte[] addr, byte[] data) {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            int rc = FabricInline.fi_connect(fid, bytes(a, AddressNames.toNative(addr, info.addrFormat)), bytes(a, data),
                    data == null ? 0 : data.length);
            ReturnCodes.check(rc, "fi_connect", "bind an event queue and enable the endpoint first; CM data must fit "
                    + "FI_OPT_CM_DATA_SIZE");
        }
    }

    @Override
    public void accept(byte[] data) {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            int rc = FabricInline.fi_accept(fid, bytes(a, data), data == null ? 0 : data.length);
            ReturnCodes.check(rc, "fi_accept", "open the endpoint from the CONNREQ's info, bind an EQ and enable it first");
        }
    }

    @Override
    public void shutdown(long flags) {
        checkOpen();
        ReturnCodes.check(FabricInline.fi_shutdown(fid, flags), "fi_shutdown", "shut down a connected endpoint");
    }

    @Override
    public byte[] getName() {
        checkOpen();
        return AddressNames.get(fid, false, "fi_getname", info.addrFormat);
    }

    @Override
    public void setName(byte[] addr) {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            byte[] n = AddressNames.toNative(addr, info.addrFormat);
            ReturnCodes.check(FabricInline.fi_setname(fid, bytes(a, n), n.length), "fi_setname",
                    "pass an address in the info's addr_format");
        }
    }

    @Override
    public byte[] getPeer() {
        checkOpen();
        return AddressNames.get(fid, true, "fi_getpeer", info.addrFormat);
    }

    @Override
    public long getOpt(EndpointOption option) {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ValueLayout.JAVA_LONG);
            MemorySegment len = a.allocate(ValueLayout.JAVA_LONG);
            len.set(ValueLayout.JAVA_LONG, 0, 8);
            ReturnCodes.check(FabricInline.fi_getopt(fid, Fabric_h.FI_OPT_ENDPOINT(), option.value(), v, len),
                    "fi_getopt(" + option.cName() + ")", "this provider may not support that option");
            long n = len.get(ValueLayout.JAVA_LONG, 0);
            return n == 4 ? v.get(ValueLayout.JAVA_INT, 0) : v.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    @Override
    public void setOpt(EndpointOption option, long value) {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ValueLayout.JAVA_LONG);
            v.set(ValueLayout.JAVA_LONG, 0, value);
            ReturnCodes.check(FabricInline.fi_setopt(fid, Fabric_h.FI_OPT_ENDPOINT(), option.value(), v, 8),
                    "fi_setopt(" + option.cName() + ")", "this provider may not support that option");
        }
        loadOps();
    }

    @Override
    public int cancel(Object context) {
        int slot = slots.find(context);
        if (slot < 0) {
            return -Errno.ENOENT;
        }
        if (absent(cancelFn)) {
            return missing();
        }
        return (int) fi_ops_ep.cancel.invoke(cancelFn, fid, slots.segment(slot));
    }

    private static MemorySegment bytes(Arena a, byte[] b) {
        return b == null || b.length == 0 ? MemorySegment.NULL : a.allocateFrom(ValueLayout.JAVA_BYTE, b);
    }

    // ============================================================== data path helpers

    /** fi_mr_desc of a bridged region; null when {@code mr} is not one (the caller returns -EINVAL). */
    private static MemorySegment desc(MemoryRegion mr) {
        if (mr == null) {
            return MemorySegment.NULL;
        }
        return mr instanceof LibfabricMemoryRegion n && !n.isClosed() ? n.desc : null;
    }

    private int post(long rc, int slot) {
        if (rc < 0) {
            slots.release(slot);
        }
        return (int) rc;
    }

    /** Inject data as the native call takes it (heap data copied into the bounce buffer); null when too long. */
    private MemorySegment injectable(MemorySegment buf) {
        if (buf.byteSize() > injectLimit) {
            return null;
        }
        if (buf.isNative()) {
            return buf;
        }
        if (buf.byteSize() > bounce.byteSize()) {
            return null;
        }
        MemorySegment.copy(buf, 0, bounce, 0, buf.byteSize());
        return bounce;
    }

    // ============================================================== fi_msg(3)

    @Override
    public int send(MemorySegment buf, MemoryRegion mr, long destAddr, Object context) {
        MemorySegment d = desc(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(send)) {
            return missing();
        }
        int slot = slots.acquire(context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(send, fidAddr, buf.address(), buf.byteSize(), d.address(), destAddr,
                slots.address(slot)), slot);
    }

    @Override
    public int senddata(MemorySegment buf, MemoryRegion mr, long data, long destAddr, Object context) {
        MemorySegment d = desc(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(senddata)) {
            return missing();
        }
        int slot = slots.acquire(context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(senddata, fidAddr, buf.address(), buf.byteSize(), d.address(), data, destAddr,
                slots.address(slot)), slot);
    }

    @Override
    public int inject(MemorySegment buf, long destAddr) {
        if (absent(inject)) {
            return missing();
        }
        if (domain.threadSafe && !buf.isNative()) {
            synchronized (bounce) {
                return injectLocked(buf, destAddr);
            }
        }
        return injectLocked(buf, destAddr);
    }

    private int injectLocked(MemorySegment buf, long destAddr) {
        MemorySegment b = injectable(buf);
        return b == null ? -Errno.EMSGSIZE
                : (int) DataCalls.call(inject, fidAddr, b.address(), buf.byteSize(), destAddr);
    }

    @Override
    public int injectdata(MemorySegment buf, long data, long destAddr) {
        if (absent(injectdata)) {
            return missing();
        }
        if (domain.threadSafe && !buf.isNative()) {
            synchronized (bounce) {
                return injectdataLocked(buf, data, destAddr);
            }
        }
        return injectdataLocked(buf, data, destAddr);
    }

    private int injectdataLocked(MemorySegment buf, long data, long destAddr) {
        MemorySegment b = injectable(buf);
        return b == null ? -Errno.EMSGSIZE
                : (int) DataCalls.call(injectdata, fidAddr, b.address(), buf.byteSize(), data, destAddr);
    }

    @Override
    public int recv(MemorySegment buf, MemoryRegion mr, long srcAddr, Object context) {
        MemorySegment d = desc(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(recv)) {
            return missing();
        }
        int slot = slots.acquire(context, recvIsMulti);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(recv, fidAddr, buf.address(), buf.byteSize(), d.address(), srcAddr,
                slots.address(slot)), slot);
    }

    @Override
    public int sendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, Object context) {
        if (absent(sendv)) {
            return missing();
        }
        IovScratch s = txScratch;
        if (domain.threadSafe) {
            synchronized (s) {
                return sendvLocked(s, iov, desc, count, destAddr, context);
            }
        }
        return sendvLocked(s, iov, desc, count, destAddr, context);
    }

    private int sendvLocked(IovScratch s, MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr,
                            Object context) {
        if (!s.fill(iov, desc, count)) {
            return EINVAL;
        }
        int slot = slots.acquire(context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(sendv, fidAddr, s.iovAddr, s.descAddr, count, destAddr, slots.address(slot)), slot);
    }

    @Override
    public int recvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, Object context) {
        if (absent(recvv)) {
            return missing();
        }
        IovScratch s = rxScratch;
        if (domain.threadSafe) {
            synchronized (s) {
                return recvvLocked(s, iov, desc, count, srcAddr, context);
            }
        }
        return recvvLocked(s, iov, desc, count, srcAddr, context);
    }

    private int recvvLocked(IovScratch s, MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr,
                            Object context) {
        if (!s.fill(iov, desc, count)) {
            return EINVAL;
        }
        int slot = slots.acquire(context, recvIsMulti);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(recvv, fidAddr, s.iovAddr, s.descAddr, count, srcAddr, slots.address(slot)), slot);
    }

    @Override
    public int sendmsg(Msg msg, long flags) {
        if (absent(sendmsg)) {
            return missing();
        }
        IovScratch s = txScratch;
        if (domain.threadSafe) {
            synchronized (s) {
                return msgLocked(s, msg, flags, sendmsg, false);
            }
        }
        return msgLocked(s, msg, flags, sendmsg, false);
    }

    @Override
    public int recvmsg(Msg msg, long flags) {
        if (absent(recvmsg)) {
            return missing();
        }
        IovScratch s = rxScratch;
        if (domain.threadSafe) {
            synchronized (s) {
                return msgLocked(s, msg, flags, recvmsg, (flags & OpFlags.MULTI_RECV) != 0);
            }
        }
        return msgLocked(s, msg, flags, recvmsg, (flags & OpFlags.MULTI_RECV) != 0);
    }

    private int msgLocked(IovScratch s, Msg msg, long flags, MemorySegment fn, boolean multi) {
        if (!s.fill(msg.iov, msg.desc, msg.iovCount)) {
            return EINVAL;
        }
        int slot = slots.acquire(msg.context, multi);
        if (slot < 0) {
            return EAGAIN;
        }
        s.msg(msg, slots.segment(slot));
        return post(DataCalls.call(fn, fidAddr, s.msgAddr, flags), slot);
    }

    // ============================================================== fi_tagged(3)

    @Override
    public int tsend(MemorySegment buf, MemoryRegion mr, long destAddr, long tag, Object context) {
        MemorySegment d = desc(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(tsend)) {
            return missing();
        }
        int slot = slots.acquire(context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(tsend, fidAddr, buf.address(), buf.byteSize(), d.address(), destAddr, tag,
                slots.address(slot)), slot);
    }

    @Override
    public int tsenddata(MemorySegment buf, MemoryRegion mr, long data, long destAddr, long tag, Object context) {
        MemorySegment d = desc(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(tsenddata)) {
            return missing();
        }
        int slot = slots.acquire(context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(tsenddata, fidAddr, buf.address(), buf.byteSize(), d.address(), data, destAddr, tag,
                slots.address(slot)), slot);
    }

    @Override
    public int tinject(MemorySegment buf, long destAddr, long tag) {
        if (absent(tinject)) {
            return missing();
        }
        if (domain.threadSafe && !buf.isNative()) {
            synchronized (bounce) {
                return tinjectLocked(buf, destAddr, tag);
            }
        }
        return tinjectLocked(buf, destAddr, tag);
    }

    private int tinjectLocked(MemorySegment buf, long destAddr, long tag) {
        MemorySegment b = injectable(buf);
        return b == null ? -Errno.EMSGSIZE
                : (int) DataCalls.call(tinject, fidAddr, b.address(), buf.byteSize(), destAddr, tag);
    }

    @Override
    public int tinjectdata(MemorySegment buf, long data, long destAddr, long tag) {
        if (absent(tinjectdata)) {
            return missing();
        }
        if (domain.threadSafe && !buf.isNative()) {
            synchronized (bounce) {
                return tinjectdataLocked(buf, data, destAddr, tag);
            }
        }
        return tinjectdataLocked(buf, data, destAddr, tag);
    }

    private int tinjectdataLocked(MemorySegment buf, long data, long destAddr, long tag) {
        MemorySegment b = injectable(buf);
        return b == null ? -Errno.EMSGSIZE
                : (int) DataCalls.call(tinjectdata, fidAddr, b.address(), buf.byteSize(), data, destAddr, tag);
    }

    @Override
    public int trecv(MemorySegment buf, MemoryRegion mr, long srcAddr, long tag, long ignore, Object context) {
        MemorySegment d = desc(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(trecv)) {
            return missing();
        }
        int slot = slots.acquire(context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(trecv, fidAddr, buf.address(), buf.byteSize(), d.address(), srcAddr, tag, ignore,
                slots.address(slot)), slot);
    }

    @Override
    public int tsendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long tag, Object context) {
        if (absent(tsendv)) {
            return missing();
        }
        IovScratch s = txScratch;
        if (domain.threadSafe) {
            synchronized (s) {
                return tsendvLocked(s, iov, desc, count, destAddr, tag, context);
            }
        }
        return tsendvLocked(s, iov, desc, count, destAddr, tag, context);
    }

    private int tsendvLocked(IovScratch s, MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long tag,
                             Object context) {
        if (!s.fill(iov, desc, count)) {
            return EINVAL;
        }
        int slot = slots.acquire(context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(tsendv, fidAddr, s.iovAddr, s.descAddr, count, destAddr, tag,
                slots.address(slot)), slot);
    }

    @Override
    public int trecvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long tag, long ignore,
                      Object context) {
        if (absent(trecvv)) {
            return missing();
        }
        IovScratch s = rxScratch;
        if (domain.threadSafe) {
            synchronized (s) {
                return trecvvLocked(s, iov, desc, count, srcAddr, tag, ignore, context);
            }
        }
        return trecvvLocked(s, iov, desc, count, srcAddr, tag, ignore, context);
    }

    private int trecvvLocked(IovScratch s, MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long tag,
                             long ignore, Object context) {
        if (!s.fill(iov, desc, count)) {
            return EINVAL;
        }
        int slot = slots.acquire(context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(trecvv, fidAddr, s.iovAddr, s.descAddr, count, srcAddr, tag, ignore,
                slots.address(slot)), slot);
    }

    @Override
    public int tsendmsg(TaggedMsg msg, long flags) {
        if (absent(tsendmsg)) {
            return missing();
        }
        IovScratch s = txScratch;
        if (domain.threadSafe) {
            synchronized (s) {
                return taggedLocked(s, msg, flags, tsendmsg);
            }
        }
        return taggedLocked(s, msg, flags, tsendmsg);
    }

    @Override
    public int trecvmsg(TaggedMsg msg, long flags) {
        if (absent(trecvmsg)) {
            return missing();
        }
        IovScratch s = rxScratch;
        if (domain.threadSafe) {
            synchronized (s) {
                return taggedLocked(s, msg, flags, trecvmsg);
            }
        }
        return taggedLocked(s, msg, flags, trecvmsg);
    }

    private int taggedLocked(IovScratch s, TaggedMsg msg, long flags, MemorySegment fn) {
        if (!s.fill(msg.iov, msg.desc, msg.iovCount)) {
            return EINVAL;
        }
        int slot = slots.acquire(msg.context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        s.tagged(msg, slots.segment(slot));
        return post(DataCalls.call(fn, fidAddr, s.tmsgAddr, flags), slot);
    }

    // ============================================================== fi_rma(3)

    @Override
    public int read(MemorySegment buf, MemoryRegion mr, long srcAddr, long addr, long key, Object context) {
        MemorySegment d = desc(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(read)) {
            return missing();
        }
        int slot = slots.acquire(context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(read, fidAddr, buf.address(), buf.byteSize(), d.address(), srcAddr, addr, key,
                slots.address(slot)), slot);
    }

    @Override
    public int write(MemorySegment buf, MemoryRegion mr, long destAddr, long addr, long key, Object context) {
        MemorySegment d = desc(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(write)) {
            return missing();
        }
        int slot = slots.acquire(context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(write, fidAddr, buf.address(), buf.byteSize(), d.address(), destAddr, addr, key,
                slots.address(slot)), slot);
    }

    @Override
    public int writedata(MemorySegment buf, MemoryRegion mr, long data, long destAddr, long addr, long key,
                         Object context) {
        MemorySegment d = desc(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(writedata)) {
            return missing();
        }
        int slot = slots.acquire(context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(writedata, fidAddr, buf.address(), buf.byteSize(), d.address(), data, destAddr, addr,
                key,
                slots.address(slot)), slot);
    }

    @Override
    public int injectWrite(MemorySegment buf, long destAddr, long addr, long key) {
        if (absent(rinject)) {
            return missing();
        }
        if (domain.threadSafe && !buf.isNative()) {
            synchronized (bounce) {
                return injectWriteLocked(buf, destAddr, addr, key);
            }
        }
        return injectWriteLocked(buf, destAddr, addr, key);
    }

    private int injectWriteLocked(MemorySegment buf, long destAddr, long addr, long key) {
        MemorySegment b = injectable(buf);
        return b == null ? -Errno.EMSGSIZE
                : (int) DataCalls.call(rinject, fidAddr, b.address(), buf.byteSize(), destAddr, addr, key);
    }

    @Override
    public int injectWritedata(MemorySegment buf, long data, long destAddr, long addr, long key) {
        if (absent(rinjectdata)) {
            return missing();
        }
        if (domain.threadSafe && !buf.isNative()) {
            synchronized (bounce) {
                return injectWritedataLocked(buf, data, destAddr, addr, key);
            }
        }
        return injectWritedataLocked(buf, data, destAddr, addr, key);
    }

    private int injectWritedataLocked(MemorySegment buf, long data, long destAddr, long addr, long key) {
        MemorySegment b = injectable(buf);
        return b == null ? -Errno.EMSGSIZE
                : (int) DataCalls.call(rinjectdata, fidAddr, b.address(), buf.byteSize(), data, destAddr, addr, key);
    }

    @Override
    public int readv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long addr, long key,
                     Object context) {
        return rmav(readv, iov, desc, count, srcAddr, addr, key, context);
    }

    @Override
    public int writev(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long addr, long key,
                      Object context) {
        return rmav(writev, iov, desc, count, destAddr, addr, key, context);
    }

    private int rmav(MemorySegment fn, MemorySegment[] iov, MemoryRegion[] desc, int count, long peer, long addr,
                     long key, Object context) {
        if (absent(fn)) {
            return missing();
        }
        IovScratch s = txScratch;
        if (domain.threadSafe) {
            synchronized (s) {
                return rmavLocked(s, fn, iov, desc, count, peer, addr, key, context);
            }
        }
        return rmavLocked(s, fn, iov, desc, count, peer, addr, key, context);
    }

    private int rmavLocked(IovScratch s, MemorySegment fn, MemorySegment[] iov, MemoryRegion[] desc, int count,
                           long peer, long addr, long key, Object context) {
        if (!s.fill(iov, desc, count)) {
            return EINVAL;
        }
        int slot = slots.acquire(context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        // readv and writev share one C signature
        return post(DataCalls.call(fn, fidAddr, s.iovAddr, s.descAddr, count, peer, addr, key, slots.address(slot)),
                slot);
    }

    @Override
    public int readmsg(RmaMsg msg, long flags) {
        return rmamsg(readmsg, msg, flags);
    }

    @Override
    public int writemsg(RmaMsg msg, long flags) {
        return rmamsg(writemsg, msg, flags);
    }

    private int rmamsg(MemorySegment fn, RmaMsg msg, long flags) {
        if (absent(fn)) {
            return missing();
        }
        IovScratch s = txScratch;
        if (domain.threadSafe) {
            synchronized (s) {
                return rmamsgLocked(s, fn, msg, flags);
            }
        }
        return rmamsgLocked(s, fn, msg, flags);
    }

    private int rmamsgLocked(IovScratch s, MemorySegment fn, RmaMsg msg, long flags) {
        if (!s.fill(msg.iov, msg.desc, msg.iovCount) || !s.fillRma(msg)) {
            return EINVAL;
        }
        int slot = slots.acquire(msg.context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        s.rma(msg, slots.segment(slot));
        return post(DataCalls.call(fn, fidAddr, s.rmsgAddr, flags), slot);
    }

    /** Preallocated native iovec/desc arrays and fi_msg structs for the v and msg forms. */
    private static final class IovScratch {
        final MemorySegment iov;
        final MemorySegment desc;
        final MemorySegment rmaIov;
        final MemorySegment msg;
        final MemorySegment tmsg;
        final MemorySegment rmsg;
        // what the data calls are given (see DataCalls)
        final long iovAddr;
        final long descAddr;
        final long msgAddr;
        final long tmsgAddr;
        final long rmsgAddr;

        IovScratch(Arena arena) {
            iov = io.jfabric.provider.libfabric.ffi.generated.iovec.allocateArray(MAX_IOV, arena);
            desc = arena.allocate(Fabric_h.C_POINTER, MAX_IOV);
            rmaIov = io.jfabric.provider.libfabric.ffi.generated.fi_rma_iov.allocateArray(MAX_IOV, arena);
            msg = io.jfabric.provider.libfabric.ffi.generated.fi_msg.allocate(arena);
            tmsg = io.jfabric.provider.libfabric.ffi.generated.fi_msg_tagged.allocate(arena);
            rmsg = io.jfabric.provider.libfabric.ffi.generated.fi_msg_rma.allocate(arena);
            iovAddr = iov.address();
            descAddr = desc.address();
            msgAddr = msg.address();
            tmsgAddr = tmsg.address();
            rmsgAddr = rmsg.address();
        }

        /** Copies {@code count} buffers and descriptors into the native arrays; false on bad input. */
        boolean fill(MemorySegment[] bufs, MemoryRegion[] mrs, int count) {
            if (count < 0 || count > MAX_IOV || bufs == null || count > bufs.length) {
                return false;
            }
            for (int i = 0; i < count; i++) {
                MemorySegment b = bufs[i];
                if (b == null || !b.isNative()) {
                    return false;
                }
                MemorySegment d = desc(mrs == null || i >= mrs.length ? null : mrs[i]);
                if (d == null) {
                    return false;
                }
                MemorySegment e = io.jfabric.provider.libfabric.ffi.generated.iovec.asSlice(iov, i);
                io.jfabric.provider.libfabric.ffi.generated.iovec.iov_base(e, b);
                io.jfabric.provider.libfabric.ffi.generated.iovec.iov_len(e, b.byteSize());
                desc.setAtIndex(Fabric_h.C_POINTER, i, d);
            }
            return true;
        }

        boolean fillRma(RmaMsg m) {
            if (m.rmaIovCount < 0 || m.rmaIovCount > MAX_IOV || m.rmaIov == null || m.rmaIovCount > m.rmaIov.length) {
                return false;
            }
            for (int i = 0; i < m.rmaIovCount; i++) {
                MemorySegment e = io.jfabric.provider.libfabric.ffi.generated.fi_rma_iov.asSlice(rmaIov, i);
                io.jfabric.provider.libfabric.ffi.generated.fi_rma_iov.addr(e, m.rmaIov[i].addr);
                io.jfabric.provider.libfabric.ffi.generated.fi_rma_iov.len(e, m.rmaIov[i].len);
                io.jfabric.provider.libfabric.ffi.generated.fi_rma_iov.key(e, m.rmaIov[i].key);
            }
            return true;
        }

        void msg(Msg m, MemorySegment ctx) {
            io.jfabric.provider.libfabric.ffi.generated.fi_msg.msg_iov(msg, iov);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg.desc(msg, desc);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg.iov_count(msg, m.iovCount);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg.addr(msg, m.addr);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg.context(msg, ctx);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg.data(msg, m.data);
        }

        void tagged(TaggedMsg m, MemorySegment ctx) {
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_tagged.msg_iov(tmsg, iov);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_tagged.desc(tmsg, desc);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_tagged.iov_count(tmsg, m.iovCount);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_tagged.addr(tmsg, m.addr);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_tagged.tag(tmsg, m.tag);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_tagged.ignore(tmsg, m.ignore);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_tagged.context(tmsg, ctx);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_tagged.data(tmsg, m.data);
        }

        void rma(RmaMsg m, MemorySegment ctx) {
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_rma.msg_iov(rmsg, iov);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_rma.desc(rmsg, desc);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_rma.iov_count(rmsg, m.iovCount);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_rma.addr(rmsg, m.addr);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_rma.rma_iov(rmsg, rmaIov);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_rma.rma_iov_count(rmsg, m.rmaIovCount);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_rma.context(rmsg, ctx);
            io.jfabric.provider.libfabric.ffi.generated.fi_msg_rma.data(rmsg, m.data);
        }
    }
}
