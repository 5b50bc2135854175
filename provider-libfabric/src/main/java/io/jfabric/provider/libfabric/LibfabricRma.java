package io.jfabric.provider.libfabric;

import io.jfabric.Errno;
import io.jfabric.MemoryRegion;
import io.jfabric.RmaMsg;
import io.jfabric.provider.libfabric.ffi.DataCalls;
import io.jfabric.provider.libfabric.ffi.FabricInline;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_rma;

import java.lang.foreign.MemorySegment;

/**
 * fi_rma(3) of one endpoint: each call goes straight to the native provider's RMA function of the same
 * form (fi_read to its read, fi_writemsg to its writemsg, ...); the native provider checks keys and ranges.
 */
final class LibfabricRma extends EndpointRoom {
    private MemorySegment read, readv, readmsg, write, writev, writemsg, rinject, writedata, rinjectdata;

    LibfabricRma(EndpointRoom.Shared shared) {
        super(shared);
    }

    @Override
    void load(MemorySegment fid) {
        read = FabricInline.rmaOp(fid, fi_ops_rma.read$offset());
        readv = FabricInline.rmaOp(fid, fi_ops_rma.readv$offset());
        readmsg = FabricInline.rmaOp(fid, fi_ops_rma.readmsg$offset());
        write = FabricInline.rmaOp(fid, fi_ops_rma.write$offset());
        writev = FabricInline.rmaOp(fid, fi_ops_rma.writev$offset());
        writemsg = FabricInline.rmaOp(fid, fi_ops_rma.writemsg$offset());
        rinject = FabricInline.rmaOp(fid, fi_ops_rma.inject$offset());
        writedata = FabricInline.rmaOp(fid, fi_ops_rma.writedata$offset());
        rinjectdata = FabricInline.rmaOp(fid, fi_ops_rma.injectdata$offset());
    }

    @Override
    void clear() {
        MemorySegment n = MemorySegment.NULL;
        read = readv = readmsg = write = writev = writemsg = rinject = writedata = rinjectdata = n;
    }

    int read(MemorySegment buf, MemoryRegion mr, long srcAddr, long addr, long key, Object context) {
        MemorySegment d = LibfabricMemoryRegion.descOf(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(read)) {
            return missing();
        }
        int slot = txSlot(context);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(read, fidAddr, buf.address(), buf.byteSize(), d.address(), srcAddr, addr, key,
                contextAddress(slot)), slot);
    }

    int write(MemorySegment buf, MemoryRegion mr, long destAddr, long addr, long key, Object context) {
        MemorySegment d = LibfabricMemoryRegion.descOf(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(write)) {
            return missing();
        }
        int slot = txSlot(context);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(write, fidAddr, buf.address(), buf.byteSize(), d.address(), destAddr, addr, key,
                contextAddress(slot)), slot);
    }

    int writedata(MemorySegment buf, MemoryRegion mr, long data, long destAddr, long addr, long key,
                         Object context) {
        MemorySegment d = LibfabricMemoryRegion.descOf(mr);
        if (d == null || !buf.isNative()) {
            return EINVAL;
        }
        if (absent(writedata)) {
            return missing();
        }
        int slot = txSlot(context);
        if (slot < 0) {
            return EAGAIN;
        }
        return post(DataCalls.call(writedata, fidAddr, buf.address(), buf.byteSize(), d.address(), data, destAddr, addr,
                key,
                contextAddress(slot)), slot);
    }

    int injectWrite(MemorySegment buf, long destAddr, long addr, long key) {
        if (absent(rinject)) {
            return missing();
        }
        if (threadSafe && !buf.isNative()) {
            synchronized (bounce) {
                return injectWriteLocked(buf, destAddr, addr, key);
            }
        }
        return injectWriteLocked(buf, destAddr, addr, key);
    }

    private int injectWriteLocked(MemorySegment buf, long destAddr, long addr, long key) {
        MemorySegment b = bounce.injectable(buf);
        return b == null ? -Errno.EMSGSIZE
                : (int) DataCalls.call(rinject, fidAddr, b.address(), buf.byteSize(), destAddr, addr, key);
    }

    int injectWritedata(MemorySegment buf, long data, long destAddr, long addr, long key) {
        if (absent(rinjectdata)) {
            return missing();
        }
        if (threadSafe && !buf.isNative()) {
            synchronized (bounce) {
                return injectWritedataLocked(buf, data, destAddr, addr, key);
            }
        }
        return injectWritedataLocked(buf, data, destAddr, addr, key);
    }

    private int injectWritedataLocked(MemorySegment buf, long data, long destAddr, long addr, long key) {
        MemorySegment b = bounce.injectable(buf);
        return b == null ? -Errno.EMSGSIZE
                : (int) DataCalls.call(rinjectdata, fidAddr, b.address(), buf.byteSize(), data, destAddr, addr, key);
    }

    int readv(MemorySegment[] iov, MemoryRegion[] desc, int count, long srcAddr, long addr, long key,
                     Object context) {
        return rmav(readv, iov, desc, count, srcAddr, addr, key, context);
    }

    int writev(MemorySegment[] iov, MemoryRegion[] desc, int count, long destAddr, long addr, long key,
                      Object context) {
        return rmav(writev, iov, desc, count, destAddr, addr, key, context);
    }

    private int rmav(MemorySegment fn, MemorySegment[] iov, MemoryRegion[] desc, int count, long peer, long addr,
                     long key, Object context) {
        if (absent(fn)) {
            return missing();
        }
        IovScratch s = txScratch;
        if (threadSafe) {
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
        int slot = txSlot(context);
        if (slot < 0) {
            return EAGAIN;
        }
        // readv and writev share one C signature
        return post(DataCalls.call(fn, fidAddr, s.iovAddr, s.descAddr, count, peer, addr, key, contextAddress(slot)),
                slot);
    }

    int readmsg(RmaMsg msg, long flags) {
        return rmamsg(readmsg, msg, flags);
    }

    int writemsg(RmaMsg msg, long flags) {
        return rmamsg(writemsg, msg, flags);
    }

    private int rmamsg(MemorySegment fn, RmaMsg msg, long flags) {
        if (absent(fn)) {
            return missing();
        }
        IovScratch s = txScratch;
        if (threadSafe) {
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
        int slot = txSlot(msg.context, flags);
        if (slot < 0) {
            return EAGAIN;
        }
        s.rma(msg, contextSegment(slot));
        return post(DataCalls.call(fn, fidAddr, s.rmsgAddr, flags), slot);
    }
}
