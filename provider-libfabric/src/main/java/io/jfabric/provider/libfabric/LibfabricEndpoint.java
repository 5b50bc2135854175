package io.jfabric.provider.libfabric;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.BindFlags;
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
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_ep;
import io.jfabric.provider.libfabric.ffi.generated.fid_ep;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Mirrors {@code struct fid_ep} of a native provider: the facade and the control path (bind, enable, CM,
 * names, options, cancel, close). The data calls pass through to the rooms {@link LibfabricMsg},
 * {@link LibfabricTagged} and {@link LibfabricRma}, which call the provider's ops-table functions,
 * read once per control change (open, bind, enable, setopt: the calls after which libfabric lets a
 * provider swap its tables), with FI_CHECK_OP applied: a member the provider lacks returns -ENOSYS.
 * Native segments pass through untouched; contexts travel in the domain's preallocated fi_context2
 * slots; the iov and *msg forms fill preallocated native arrays. Nothing is allocated per operation.
 *
 * <p>Differences from C: heap segments are refused with -EINVAL (a provider may still be reading the
 * buffer after the call returns), except by the inject calls, which copy them into a native bounce
 * buffer first because inject's data is consumed during the call.
 */
final class LibfabricEndpoint extends FidObject implements Endpoint {
    private final ContextSlots slots;
    final FabricInfo info;
    final Object context;
    private final LibfabricMsg msgOps;
    private final LibfabricTagged taggedOps;
    private final LibfabricRma rmaOps;
    private final LibfabricAtomic atomicOps;
    private MemorySegment cancelFn;
    /** Whether transmits report success (the transmit CQ's FI_SELECTIVE_COMPLETION), shared with the rooms. */
    private final TxReporting reporting;

    private final LibfabricDomain domain;
    private boolean avBound;
    /** The AV bound only so that rxm can close the endpoint (see {@link #closing()}); closed after it. */
    private LibfabricAv placeholderAv;

    LibfabricEndpoint(LibfabricDomain domain, MemorySegment fid, FabricInfo info, Object context) {
        super(domain.fabric, fid);
        hold(domain);
        this.domain = domain;
        this.slots = domain.slots;
        this.info = info.copy();
        this.context = context;
        this.reporting = new TxReporting(info.txAttr == null ? 0 : info.txAttr.opFlags);
        String nativeName = InfoMapper.nativeName(info.providerName());
        long withheld = InfoMapper.withheldCaps(nativeName) & OpFlags.MULTI_RECV;
        EndpointRoom.Shared shared = new EndpointRoom.Shared(this, slots, domain.threadSafe, new IovScratch(arena),
                new IovScratch(arena), new InjectBuffer(arena, info), reporting, withheld,
                TxBudget.forProvider(nativeName, info.txAttr == null ? 0 : info.txAttr.size));
        this.msgOps = new LibfabricMsg(shared,
                info.rxAttr != null && (info.rxAttr.opFlags & ~withheld & OpFlags.MULTI_RECV) != 0);
        this.taggedOps = new LibfabricTagged(shared);
        this.rmaOps = new LibfabricRma(shared);
        this.atomicOps = new LibfabricAtomic(shared, info.domainAttr != null
                && (info.domainAttr.mrMode & io.jfabric.MrMode.VIRT_ADDR) != 0);
        loadOps();
    }

    @Override
    String kind() {
        return "endpoint";
    }

    /** Reads every data-path function pointer (FI_CHECK_OP); called whenever the provider may swap tables. */
    private void loadOps() {
        msgOps.load(fid);
        taggedOps.load(fid);
        rmaOps.load(fid);
        atomicOps.load(fid);
        cancelFn = FabricInline.op(fid_ep.ops(fid), fi_ops_ep.cancel$offset());
    }

    /**
     * 1.17's rxm reads the endpoint's AV in fi_close without checking that one is bound, so closing an endpoint
     * that never had one segfaults (src/test/c/close_unbound_ep.c; fi_endpoint(3) lets any endpoint close). Such
     * an endpoint, which cannot have been enabled, is bound to an empty AV first, as its C reproducer shows works.
     */
    @Override
    void closing() {
        String nativeName = InfoMapper.nativeName(info.providerName());
        if (avBound || nativeName == null || !nativeName.endsWith("ofi_rxm")) {
            return;
        }
        LibfabricAv av = (LibfabricAv) domain.openAv(new AvAttr());
        int rc = FabricInline.fi_bind(fid, av.fid, 0);
        if (rc != 0) {
            av.close();
            throw ReturnCodes.failure(rc, "fi_ep_bind of the AV that rxm needs to close an endpoint never bound to one",
                    "bind an address vector before closing the endpoint");
        }
        placeholderAv = av;
    }

    @Override
    void closed() {
        // later calls must not reach the provider with a freed fid: every pointer reads as missing
        msgOps.clear();
        taggedOps.clear();
        rmaOps.clear();
        atomicOps.clear();
        cancelFn = MemorySegment.NULL;
        if (placeholderAv != null) {
            placeholderAv.close();
            placeholderAv = null;
        }
    }

    // ============================================================== control path

    @Override
    public void bind(CompletionQueue cq, long flags) {
        checkOpen();
        bindFid(cq, flags, "completion queue");
        if ((flags & BindFlags.TRANSMIT) != 0) {
            reporting.bound((flags & BindFlags.SELECTIVE_COMPLETION) != 0);
        }
        if (cq instanceof LibfabricCq q) {
            q.bound(flags);
        }
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
        avBound = true;
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
        if (rc == -Errno.EBUSY && "shm".equals(InfoMapper.nativeName(info.providerName()))) {
            // libfabric's shm names its region "<pid>:<uid>:<index>" and refuses a leftover of that name whose
            // recorded pid is alive; a killed process's leftover, once its pid is reused by this process, names
            // this very process, so the first fi_enable fails. libfabric has unlinked the leftover by then, and
            // the second attempt creates the region afresh.
            rc = FabricInline.fi_enable(fid);
            ReturnCodes.check(rc, "fi_enable", "a live process holds this endpoint's /dev/shm region name");
        }
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
        if (EndpointRoom.absent(cancelFn)) {
            return isClosed() ? -Errno.EBADF : -Errno.ENOSYS;
        }
        return (int) fi_ops_ep.cancel.invoke(cancelFn, fid, slots.segment(slot));
    }

    private static MemorySegment bytes(Arena a, byte[] b) {
        return b == null || b.length == 0 ? MemorySegment.NULL : a.allocateFrom(ValueLayout.JAVA_BYTE, b);
    }

    // ============================================================== fi_msg(3): LibfabricMsg

    @Override
    public int send(MemorySegment buf, MemoryRegion mr, long destAddr, Object context) {
        return msgOps.send(buf, mr, destAddr, context);
    }

    @Override
    public int senddata(MemorySegment buf, MemoryRegion mr, long data, long destAddr, Object context) {
        return msgOps.senddata(buf, mr, data, destAddr, context);
    }

    @Override
    public int inject(MemorySegment buf, long destAddr) {
        return msgOps.inject(buf, destAddr);
    }

    @Override
    public int injectdata(MemorySegment buf, long data, long destAddr) {
        return msgOps.injectdata(buf, data, destAddr);
    }

    @Override
    public int recv(MemorySegment buf, MemoryRegion mr, long srcAddr, Object context) {
        return msgOps.recv(buf, mr, srcAddr, context);
    }

    @Override
    public int sendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, Object context) {
        return msgOps.sendv(iov, desc, count, destAddr, context);
    }

    @Override
    public int recvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, Object context) {
        return msgOps.recvv(iov, desc, count, srcAddr, context);
    }

    @Override
    public int sendmsg(Msg msg, long flags) {
        return msgOps.sendmsg(msg, flags);
    }

    @Override
    public int recvmsg(Msg msg, long flags) {
        return msgOps.recvmsg(msg, flags);
    }

    // ============================================================== fi_tagged(3): LibfabricTagged

    @Override
    public int tsend(MemorySegment buf, MemoryRegion mr, long destAddr, long tag, Object context) {
        return taggedOps.tsend(buf, mr, destAddr, tag, context);
    }

    @Override
    public int tsenddata(MemorySegment buf, MemoryRegion mr, long data, long destAddr, long tag, Object context) {
        return taggedOps.tsenddata(buf, mr, data, destAddr, tag, context);
    }

    @Override
    public int tinject(MemorySegment buf, long destAddr, long tag) {
        return taggedOps.tinject(buf, destAddr, tag);
    }

    @Override
    public int tinjectdata(MemorySegment buf, long data, long destAddr, long tag) {
        return taggedOps.tinjectdata(buf, data, destAddr, tag);
    }

    @Override
    public int trecv(MemorySegment buf, MemoryRegion mr, long srcAddr, long tag, long ignore, Object context) {
        return taggedOps.trecv(buf, mr, srcAddr, tag, ignore, context);
    }

    @Override
    public int tsendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long tag, Object context) {
        return taggedOps.tsendv(iov, desc, count, destAddr, tag, context);
    }

    @Override
    public int trecvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long tag, long ignore,
                      Object context) {
        return taggedOps.trecvv(iov, desc, count, srcAddr, tag, ignore, context);
    }

    @Override
    public int tsendmsg(TaggedMsg msg, long flags) {
        return taggedOps.tsendmsg(msg, flags);
    }

    @Override
    public int trecvmsg(TaggedMsg msg, long flags) {
        return taggedOps.trecvmsg(msg, flags);
    }

    // ============================================================== fi_rma(3): LibfabricRma

    @Override
    public int read(MemorySegment buf, MemoryRegion mr, long srcAddr, long addr, long key, Object context) {
        return rmaOps.read(buf, mr, srcAddr, addr, key, context);
    }

    @Override
    public int write(MemorySegment buf, MemoryRegion mr, long destAddr, long addr, long key, Object context) {
        return rmaOps.write(buf, mr, destAddr, addr, key, context);
    }

    @Override
    public int writedata(MemorySegment buf, MemoryRegion mr, long data, long destAddr, long addr, long key,
                         Object context) {
        return rmaOps.writedata(buf, mr, data, destAddr, addr, key, context);
    }

    @Override
    public int injectWrite(MemorySegment buf, long destAddr, long addr, long key) {
        return rmaOps.injectWrite(buf, destAddr, addr, key);
    }

    @Override
    public int injectWritedata(MemorySegment buf, long data, long destAddr, long addr, long key) {
        return rmaOps.injectWritedata(buf, data, destAddr, addr, key);
    }

    @Override
    public int readv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long addr, long key,
                     Object context) {
        return rmaOps.readv(iov, desc, count, srcAddr, addr, key, context);
    }

    @Override
    public int writev(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long addr, long key,
                      Object context) {
        return rmaOps.writev(iov, desc, count, destAddr, addr, key, context);
    }

    @Override
    public int readmsg(RmaMsg msg, long flags) {
        return rmaOps.readmsg(msg, flags);
    }

    @Override
    public int writemsg(RmaMsg msg, long flags) {
        return rmaOps.writemsg(msg, flags);
    }

    // ============================================================== fi_atomic(3): LibfabricAtomic

    @Override
    public int atomic(MemorySegment buf, MemoryRegion desc, long destAddr, long addr, long key,
                      io.jfabric.AtomicDatatype datatype, io.jfabric.AtomicOp op, Object context) {
        return atomicOps.atomic(buf, desc, destAddr, addr, key, datatype, op, context);
    }

    @Override
    public int injectAtomic(MemorySegment buf, long destAddr, long addr, long key, io.jfabric.AtomicDatatype datatype,
                            io.jfabric.AtomicOp op) {
        return atomicOps.inject(buf, destAddr, addr, key, datatype, op);
    }

    @Override
    public int fetchAtomic(MemorySegment buf, MemoryRegion desc, MemorySegment result, MemoryRegion resultDesc,
                           long destAddr, long addr, long key, io.jfabric.AtomicDatatype datatype,
                           io.jfabric.AtomicOp op, Object context) {
        return atomicOps.fetch(buf, desc, result, resultDesc, destAddr, addr, key, datatype, op, context);
    }

    @Override
    public int compareAtomic(MemorySegment buf, MemoryRegion desc, MemorySegment compare, MemoryRegion compareDesc,
                             MemorySegment result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                             io.jfabric.AtomicDatatype datatype, io.jfabric.AtomicOp op, Object context) {
        return atomicOps.compare(buf, desc, compare, compareDesc, result, resultDesc, destAddr, addr, key, datatype,
                op, context);
    }

    @Override
    public long atomicValid(io.jfabric.AtomicDatatype datatype, io.jfabric.AtomicOp op) {
        return atomicOps.valid(0, datatype, op);
    }

    @Override
    public long fetchAtomicValid(io.jfabric.AtomicDatatype datatype, io.jfabric.AtomicOp op) {
        return atomicOps.valid(1, datatype, op);
    }

    @Override
    public long compareAtomicValid(io.jfabric.AtomicDatatype datatype, io.jfabric.AtomicOp op) {
        return atomicOps.valid(2, datatype, op);
    }

    @Override
    public int atomicv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long addr, long key,
                       io.jfabric.AtomicDatatype datatype, io.jfabric.AtomicOp op, Object context) {
        return atomicOps.atomicv(iov, desc, count, destAddr, addr, key, datatype, op, context);
    }

    @Override
    public int atomicmsg(io.jfabric.AtomicMsg msg, long flags) {
        return atomicOps.atomicmsg(msg, flags);
    }

    @Override
    public int fetchAtomicv(MemorySegment[] iov, MemoryRegion[] desc, int count, MemorySegment[] resultv,
                            MemoryRegion[] resultDesc, int resultCount, long destAddr, long addr, long key,
                            io.jfabric.AtomicDatatype datatype, io.jfabric.AtomicOp op, Object context) {
        return atomicOps.fetchv(iov, desc, count, resultv, resultDesc, resultCount, destAddr, addr, key, datatype,
                op, context);
    }

    @Override
    public int fetchAtomicmsg(io.jfabric.AtomicMsg msg, MemorySegment[] resultv, MemoryRegion[] resultDesc,
                              int resultCount, long flags) {
        return atomicOps.fetchmsg(msg, resultv, resultDesc, resultCount, flags);
    }

    @Override
    public int compareAtomicv(MemorySegment[] iov, MemoryRegion[] desc, int count, MemorySegment[] comparev,
                              MemoryRegion[] compareDesc, int compareCount, MemorySegment[] resultv,
                              MemoryRegion[] resultDesc, int resultCount, long destAddr, long addr, long key,
                              io.jfabric.AtomicDatatype datatype, io.jfabric.AtomicOp op, Object context) {
        return atomicOps.comparev(iov, desc, count, comparev, compareDesc, compareCount, resultv, resultDesc,
                resultCount, destAddr, addr, key, datatype, op, context);
    }

    @Override
    public int compareAtomicmsg(io.jfabric.AtomicMsg msg, MemorySegment[] comparev, MemoryRegion[] compareDesc,
                                int compareCount, MemorySegment[] resultv, MemoryRegion[] resultDesc,
                                int resultCount, long flags) {
        return atomicOps.comparemsg(msg, comparev, compareDesc, compareCount, resultv, resultDesc, resultCount,
                flags);
    }
}
