package io.jfabric.provider.libfabric;

import io.jfabric.MemoryRegion;
import io.jfabric.Msg;
import io.jfabric.RmaMsg;
import io.jfabric.TaggedMsg;
import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;
import io.jfabric.provider.libfabric.ffi.generated.fi_msg;
import io.jfabric.provider.libfabric.ffi.generated.fi_msg_rma;
import io.jfabric.provider.libfabric.ffi.generated.fi_msg_tagged;
import io.jfabric.provider.libfabric.ffi.generated.fi_rma_iov;
import io.jfabric.provider.libfabric.ffi.generated.iovec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Preallocated native iovec/desc arrays and fi_msg structs for the v and msg forms of one endpoint, one for
 * its transmit side and one for its receive side. On an FI_THREAD_SAFE domain the rooms fill it and make the
 * native call under its monitor, since every thread posts through the same memory.
 */
final class IovScratch {
    static final int MAX_IOV = 16;

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
        iov = iovec.allocateArray(MAX_IOV, arena);
        desc = arena.allocate(Fabric_h.C_POINTER, MAX_IOV);
        rmaIov = fi_rma_iov.allocateArray(MAX_IOV, arena);
        msg = fi_msg.allocate(arena);
        tmsg = fi_msg_tagged.allocate(arena);
        rmsg = fi_msg_rma.allocate(arena);
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
            MemorySegment d = LibfabricMemoryRegion.descOf(mrs == null || i >= mrs.length ? null : mrs[i]);
            if (d == null) {
                return false;
            }
            MemorySegment e = iovec.asSlice(iov, i);
            iovec.iov_base(e, b);
            iovec.iov_len(e, b.byteSize());
            desc.setAtIndex(Fabric_h.C_POINTER, i, d);
        }
        return true;
    }

    boolean fillRma(RmaMsg m) {
        if (m.rmaIovCount < 0 || m.rmaIovCount > MAX_IOV || m.rmaIov == null || m.rmaIovCount > m.rmaIov.length) {
            return false;
        }
        for (int i = 0; i < m.rmaIovCount; i++) {
            MemorySegment e = fi_rma_iov.asSlice(rmaIov, i);
            fi_rma_iov.addr(e, m.rmaIov[i].addr);
            fi_rma_iov.len(e, m.rmaIov[i].len);
            fi_rma_iov.key(e, m.rmaIov[i].key);
        }
        return true;
    }

    void msg(Msg m, MemorySegment ctx) {
        fi_msg.msg_iov(msg, iov);
        fi_msg.desc(msg, desc);
        fi_msg.iov_count(msg, m.iovCount);
        fi_msg.addr(msg, m.addr);
        fi_msg.context(msg, ctx);
        fi_msg.data(msg, m.data);
    }

    void tagged(TaggedMsg m, MemorySegment ctx) {
        fi_msg_tagged.msg_iov(tmsg, iov);
        fi_msg_tagged.desc(tmsg, desc);
        fi_msg_tagged.iov_count(tmsg, m.iovCount);
        fi_msg_tagged.addr(tmsg, m.addr);
        fi_msg_tagged.tag(tmsg, m.tag);
        fi_msg_tagged.ignore(tmsg, m.ignore);
        fi_msg_tagged.context(tmsg, ctx);
        fi_msg_tagged.data(tmsg, m.data);
    }

    void rma(RmaMsg m, MemorySegment ctx) {
        fi_msg_rma.msg_iov(rmsg, iov);
        fi_msg_rma.desc(rmsg, desc);
        fi_msg_rma.iov_count(rmsg, m.iovCount);
        fi_msg_rma.addr(rmsg, m.addr);
        fi_msg_rma.rma_iov(rmsg, rmaIov);
        fi_msg_rma.rma_iov_count(rmsg, m.rmaIovCount);
        fi_msg_rma.context(rmsg, ctx);
        fi_msg_rma.data(rmsg, m.data);
    }
}
