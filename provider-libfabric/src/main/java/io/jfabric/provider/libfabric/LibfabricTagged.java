package io.jfabric.provider.libfabric;

import io.jfabric.Errno;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;
import io.jfabric.TaggedMsg;
import io.jfabric.provider.libfabric.ffi.DataCalls;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_tagged;

import java.lang.foreign.MemorySegment;

/**
 * fi_tagged(3) of one endpoint: each call goes straight to the native provider's tagged function of the
 * same form (fi_tsend to its send, fi_trecvmsg to its recvmsg, ...); the native provider matches the tags.
 */
final class LibfabricTagged extends EndpointRoom {
    private MemorySegment trecv, trecvv, trecvmsg, tsend, tsendv, tsendmsg, tinject, tsenddata, tinjectdata;

    LibfabricTagged(EndpointRoom.Shared shared) {
        super(shared);
    }

    @Override
    void load(MemorySegment fid) {
        trecv = FabricInline.taggedOp(fid, fi_ops_tagged.recv$offset());
        trecvv = FabricInline.taggedOp(fid, fi_ops_tagged.recvv$offset());
        trecvmsg = FabricInline.taggedOp(fid, fi_ops_tagged.recvmsg$offset());
        tsend = FabricInline.taggedOp(fid, fi_ops_tagged.send$offset());
        tsendv = FabricInline.taggedOp(fid, fi_ops_tagged.sendv$offset());
        tsendmsg = FabricInline.taggedOp(fid, fi_ops_tagged.sendmsg$offset());
        tinject = FabricInline.taggedOp(fid, fi_ops_tagged.inject$offset());
        tsenddata = FabricInline.taggedOp(fid, fi_ops_tagged.senddata$offset());
        tinjectdata = FabricInline.taggedOp(fid, fi_ops_tagged.injectdata$offset());
    }

    @Override
    void clear() {
        MemorySegment n = MemorySegment.NULL;
        trecv = trecvv = trecvmsg = tsend = tsendv = tsendmsg = tinject = tsenddata = tinjectdata = n;
    }

    int tsend(MemorySegment buf, MemoryRegion mr, long destAddr, long tag, Object context) {
        MemorySegment d = LibfabricMemoryRegion.descOf(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(tsend)) {
            return missing();
        }
        int slot = txSlot(context);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(tsend, fidAddr, buf.address(), buf.byteSize(), d.address(), destAddr, tag,
                contextAddress(slot)), slot);
    }

    int tsenddata(MemorySegment buf, MemoryRegion mr, long data, long destAddr, long tag, Object context) {
        MemorySegment d = LibfabricMemoryRegion.descOf(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(tsenddata)) {
            return missing();
        }
        int slot = txSlot(context);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(tsenddata, fidAddr, buf.address(), buf.byteSize(), d.address(), data, destAddr, tag,
                contextAddress(slot)), slot);
    }

    int tinject(MemorySegment buf, long destAddr, long tag) {
        if (absent(tinject)) {
            return missing();
        }
        if (threadSafe && !buf.isNative()) {
            synchronized (bounce) {
                return tinjectLocked(buf, destAddr, tag);
            }
        }
        return tinjectLocked(buf, destAddr, tag);
    }

    private int tinjectLocked(MemorySegment buf, long destAddr, long tag) {
        MemorySegment b = bounce.injectable(buf);
        return b == null ? -Errno.EMSGSIZE
                : (int) DataCalls.call(tinject, fidAddr, b.address(), buf.byteSize(), destAddr, tag);
    }

    int tinjectdata(MemorySegment buf, long data, long destAddr, long tag) {
        if (absent(tinjectdata)) {
            return missing();
        }
        if (threadSafe && !buf.isNative()) {
            synchronized (bounce) {
                return tinjectdataLocked(buf, data, destAddr, tag);
            }
        }
        return tinjectdataLocked(buf, data, destAddr, tag);
    }

    private int tinjectdataLocked(MemorySegment buf, long data, long destAddr, long tag) {
        MemorySegment b = bounce.injectable(buf);
        return b == null ? -Errno.EMSGSIZE
                : (int) DataCalls.call(tinjectdata, fidAddr, b.address(), buf.byteSize(), data, destAddr, tag);
    }

    int trecv(MemorySegment buf, MemoryRegion mr, long srcAddr, long tag, long ignore, Object context) {
        MemorySegment d = LibfabricMemoryRegion.descOf(mr);
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
                contextAddress(slot)), slot);
    }

    int tsendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long tag, Object context) {
        if (absent(tsendv)) {
            return missing();
        }
        IovScratch s = txScratch;
        if (threadSafe) {
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
        int slot = txSlot(context);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(tsendv, fidAddr, s.iovAddr, s.descAddr, count, destAddr, tag,
                contextAddress(slot)), slot);
    }

    int trecvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long tag, long ignore,
                      Object context) {
        if (absent(trecvv)) {
            return missing();
        }
        IovScratch s = rxScratch;
        if (threadSafe) {
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
                contextAddress(slot)), slot);
    }

    int tsendmsg(TaggedMsg msg, long flags) {
        if (absent(tsendmsg)) {
            return missing();
        }
        IovScratch s = txScratch;
        if (threadSafe) {
            synchronized (s) {
                return taggedLocked(s, msg, flags, tsendmsg);
            }
        }
        return taggedLocked(s, msg, flags, tsendmsg);
    }

    int trecvmsg(TaggedMsg msg, long flags) {
        if (absent(trecvmsg)) {
            return missing();
        }
        if ((flags & withheldRxFlags) != 0) {
            return EBADFLAGS;
        }
        IovScratch s = rxScratch;
        if (threadSafe) {
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
        if ((flags & (OpFlags.CLAIM | OpFlags.PEEK)) == OpFlags.CLAIM) {
            return claimLocked(s, msg, flags, fn);
        }
        int slot = fn == tsendmsg ? txSlot(msg.context, flags) : slots.acquire(msg.context, false);
        if (slot < 0) {
            return EAGAIN;
        }
        if ((flags & (OpFlags.CLAIM | OpFlags.PEEK)) == (OpFlags.CLAIM | OpFlags.PEEK)) {
            slots.markPeekClaim(slot);
        }
        s.tagged(msg, contextSegment(slot));
        return post(DataCalls.call(fn, fidAddr, s.tmsgAddr, flags), slot);
    }

    /**
     * FI_CLAIM (or FI_CLAIM|FI_DISCARD): fi_tagged(3) wants the native context of the FI_PEEK|FI_CLAIM that
     * found the message, where the native provider keeps it; with any other context rxm would claim
     * whatever that memory holds.
     */
    private int claimLocked(IovScratch s, TaggedMsg msg, long flags, MemorySegment fn) {
        int slot = slots.reclaim(msg.context);
        if (slot < 0) {
            return EINVAL;
        }
        s.tagged(msg, contextSegment(slot));
        long rc = DataCalls.call(fn, fidAddr, s.tmsgAddr, flags);
        if (rc < 0) {
            slots.hold(slot);
        }
        return (int) rc;
    }
}
