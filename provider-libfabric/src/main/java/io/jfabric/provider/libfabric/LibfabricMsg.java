package io.jfabric.provider.libfabric;

import io.jfabric.Errno;
import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import io.jfabric.provider.libfabric.ffi.DataCalls;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_msg;

import java.lang.foreign.MemorySegment;

/**
 * fi_msg(3) of one endpoint: each call goes straight to the native provider's function of the same form
 * (fi_send to its send, fi_sendv to its sendv, ...), with the endpoint's preallocated contexts and iov memory.
 */
final class LibfabricMsg extends EndpointRoom {
    /**
     * fi_recv and fi_recvv take the endpoint's default rx op_flags (fi_endpoint(3)); when those hold
     * FI_MULTI_RECV (1.17's shm and util providers report it by default for null hints), every receive is
     * a multi-receive buffer whose context stays in use until the FI_MULTI_RECV completion.
     */
    private final boolean recvIsMulti;

    private MemorySegment recv, recvv, recvmsg, send, sendv, sendmsg, inject, senddata, injectdata;

    LibfabricMsg(EndpointRoom.Shared shared, boolean recvIsMulti) {
        super(shared);
        this.recvIsMulti = recvIsMulti;
    }

    @Override
    void load(MemorySegment fid) {
        recv = FabricInline.msgOp(fid, fi_ops_msg.recv$offset());
        recvv = FabricInline.msgOp(fid, fi_ops_msg.recvv$offset());
        recvmsg = FabricInline.msgOp(fid, fi_ops_msg.recvmsg$offset());
        send = FabricInline.msgOp(fid, fi_ops_msg.send$offset());
        sendv = FabricInline.msgOp(fid, fi_ops_msg.sendv$offset());
        sendmsg = FabricInline.msgOp(fid, fi_ops_msg.sendmsg$offset());
        inject = FabricInline.msgOp(fid, fi_ops_msg.inject$offset());
        senddata = FabricInline.msgOp(fid, fi_ops_msg.senddata$offset());
        injectdata = FabricInline.msgOp(fid, fi_ops_msg.injectdata$offset());
    }

    @Override
    void clear() {
        MemorySegment n = MemorySegment.NULL;
        recv = recvv = recvmsg = send = sendv = sendmsg = inject = senddata = injectdata = n;
    }

    int send(MemorySegment buf, MemoryRegion mr, long destAddr, Object context) {
        MemorySegment d = LibfabricMemoryRegion.descOf(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(send)) {
            return missing();
        }
        int slot = txSlot(context);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(send, fidAddr, buf.address(), buf.byteSize(), d.address(), destAddr,
                contextAddress(slot)), slot);
    }

    int senddata(MemorySegment buf, MemoryRegion mr, long data, long destAddr, Object context) {
        MemorySegment d = LibfabricMemoryRegion.descOf(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(senddata)) {
            return missing();
        }
        int slot = txSlot(context);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(senddata, fidAddr, buf.address(), buf.byteSize(), d.address(), data, destAddr,
                contextAddress(slot)), slot);
    }

    int inject(MemorySegment buf, long destAddr) {
        if (absent(inject)) {
            return missing();
        }
        if (threadSafe && !buf.isNative()) {
            synchronized (bounce) {
                return injectLocked(buf, destAddr);
            }
        }
        return injectLocked(buf, destAddr);
    }

    private int injectLocked(MemorySegment buf, long destAddr) {
        MemorySegment b = bounce.injectable(buf);
        return b == null ? -Errno.EMSGSIZE
                : (int) DataCalls.call(inject, fidAddr, b.address(), buf.byteSize(), destAddr);
    }

    int injectdata(MemorySegment buf, long data, long destAddr) {
        if (absent(injectdata)) {
            return missing();
        }
        if (threadSafe && !buf.isNative()) {
            synchronized (bounce) {
                return injectdataLocked(buf, data, destAddr);
            }
        }
        return injectdataLocked(buf, data, destAddr);
    }

    private int injectdataLocked(MemorySegment buf, long data, long destAddr) {
        MemorySegment b = bounce.injectable(buf);
        return b == null ? -Errno.EMSGSIZE
                : (int) DataCalls.call(injectdata, fidAddr, b.address(), buf.byteSize(), data, destAddr);
    }

    int recv(MemorySegment buf, MemoryRegion mr, long srcAddr, Object context) {
        MemorySegment d = LibfabricMemoryRegion.descOf(mr);
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
                contextAddress(slot)), slot);
    }

    int sendv(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, Object context) {
        if (absent(sendv)) {
            return missing();
        }
        IovScratch s = txScratch;
        if (threadSafe) {
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
        int slot = txSlot(context);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(sendv, fidAddr, s.iovAddr, s.descAddr, count, destAddr, contextAddress(slot)), slot);
    }

    int recvv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, Object context) {
        if (absent(recvv)) {
            return missing();
        }
        IovScratch s = rxScratch;
        if (threadSafe) {
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
        return post(DataCalls.call(recvv, fidAddr, s.iovAddr, s.descAddr, count, srcAddr, contextAddress(slot)), slot);
    }

    int sendmsg(Msg msg, long flags) {
        if (absent(sendmsg)) {
            return missing();
        }
        IovScratch s = txScratch;
        if (threadSafe) {
            synchronized (s) {
                return msgLocked(s, msg, flags, sendmsg, false);
            }
        }
        return msgLocked(s, msg, flags, sendmsg, false);
    }

    int recvmsg(Msg msg, long flags) {
        if (absent(recvmsg)) {
            return missing();
        }
        if ((flags & withheldRxFlags) != 0) {
            return EBADFLAGS;
        }
        IovScratch s = rxScratch;
        if (threadSafe) {
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
        int slot = fn == sendmsg ? txSlot(msg.context, flags) : slots.acquire(msg.context, multi);
        if (slot < 0) {
            return EAGAIN;
        }
        s.msg(msg, contextSegment(slot));
        return post(DataCalls.call(fn, fidAddr, s.msgAddr, flags), slot);
    }
}
