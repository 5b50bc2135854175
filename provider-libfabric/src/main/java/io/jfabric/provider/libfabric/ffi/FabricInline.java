package io.jfabric.provider.libfabric.ffi;

import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_av;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_cm;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_cntr;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_cq;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_domain;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_ep;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_eq;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_fabric;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_mr;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_msg;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_rma;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_tagged;
import io.jfabric.provider.libfabric.ffi.generated.fid_av;
import io.jfabric.provider.libfabric.ffi.generated.fid_cntr;
import io.jfabric.provider.libfabric.ffi.generated.fid_cq;
import io.jfabric.provider.libfabric.ffi.generated.fid_domain;
import io.jfabric.provider.libfabric.ffi.generated.fid_ep;
import io.jfabric.provider.libfabric.ffi.generated.fid_eq;
import io.jfabric.provider.libfabric.ffi.generated.fid_fabric;
import io.jfabric.provider.libfabric.ffi.generated.fid_mr;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * libfabric's {@code static inline} calls (fi_domain, fi_endpoint, fi_send, fi_cq_read, fi_close, ...),
 * which jextract cannot bind, reimplemented in Java through the ops-table function pointers.
 *
 * <p>Each call reads the function pointer through {@link #op(MemorySegment, long)}, which applies
 * libfabric's {@code FI_CHECK_OP} rule (ops table present, {@code ops->size} beyond the member's
 * offset, pointer not null) to every call, not only to the few inlines that check in C: a provider
 * with a shorter table yields {@code -FI_ENOSYS} instead of a jump through garbage. Arguments and
 * results are the C ones (negative {@code FI_E*} codes, pointers as segments). These helpers read
 * the table on every call; the libfabric provider's hot path caches the function pointers per object with
 * {@link #op} and calls the generated {@code fi_ops_*.<member>.invoke} directly.
 */
public final class FabricInline {

    private FabricInline() {
    }

    /** {@code -FI_ENOSYS}: what a missing ops-table member yields. */
    public static final int NO_OP = -Fabric_h.FI_ENOSYS();

    /**
     * FI_CHECK_OP: the function pointer at {@code offset} of the ops table {@code ops}, or
     * {@link MemorySegment#NULL} when the table is absent, too short, or has no such member.
     */
    public static MemorySegment op(MemorySegment ops, long offset) {
        if (ops.address() == 0) {
            return MemorySegment.NULL;
        }
        MemorySegment table = ops.byteSize() >= offset + 8 ? ops : ops.reinterpret(offset + 8);
        long size = table.get(ValueLayout.JAVA_LONG, 0);
        if (size <= offset) {
            return MemorySegment.NULL;
        }
        return table.get(ValueLayout.ADDRESS, offset);
    }

    private static boolean missing(MemorySegment fn) {
        return fn.address() == 0;
    }

    /** A {@code struct fid *} (or a struct starting with one) readable up to {@code size} bytes. */
    private static MemorySegment sized(MemorySegment p, long size) {
        return p.byteSize() >= size ? p : p.reinterpret(size);
    }

    // ---------------------------------------------------------------- fabric.h

    /** fi_allocinfo(): fi_dupinfo(NULL). */
    public static MemorySegment fi_allocinfo() {
        return Fabric_h.fi_dupinfo(MemorySegment.NULL);
    }

    /** fi_close(fid). */
    public static int fi_close(MemorySegment fid) {
        MemorySegment fn = op(io.jfabric.provider.libfabric.ffi.generated.fid.ops(sized(fid, io.jfabric.provider.libfabric.ffi.generated.fid.sizeof())),
                fi_ops.close$offset());
        return missing(fn) ? NO_OP : fi_ops.close.invoke(fn, fid);
    }

    /** fi_control(fid, command, arg). */
    public static int fi_control(MemorySegment fid, int command, MemorySegment arg) {
        MemorySegment fn = op(io.jfabric.provider.libfabric.ffi.generated.fid.ops(sized(fid, io.jfabric.provider.libfabric.ffi.generated.fid.sizeof())),
                fi_ops.control$offset());
        return missing(fn) ? NO_OP : fi_ops.control.invoke(fn, fid, command, arg);
    }

    /** fi_bind / fi_ep_bind / fi_pep_bind / fi_mr_bind: {@code fid->ops->bind(fid, bfid, flags)}. */
    public static int fi_bind(MemorySegment fid, MemorySegment bfid, long flags) {
        MemorySegment fn = op(io.jfabric.provider.libfabric.ffi.generated.fid.ops(sized(fid, io.jfabric.provider.libfabric.ffi.generated.fid.sizeof())),
                fi_ops.bind$offset());
        return missing(fn) ? NO_OP : fi_ops.bind.invoke(fn, fid, bfid, flags);
    }

    /** fi_enable(ep) / fi_mr_enable(mr): {@code control(FI_ENABLE, NULL)}. */
    public static int fi_enable(MemorySegment fid) {
        return fi_control(fid, Fabric_h.FI_ENABLE(), MemorySegment.NULL);
    }

    // ---------------------------------------------------------------- fabric ops

    /** The fabric ops table member at {@code offset}, FI_CHECK_OP applied (NULL when the provider lacks it). */
    public static MemorySegment fabricOp(MemorySegment fabric, long offset) {
        return op(fid_fabric.ops(sized(fabric, fid_fabric.sizeof())), offset);
    }

    /** fi_domain(fabric, info, &domain, context). */
    public static int fi_domain(MemorySegment fabric, MemorySegment info, MemorySegment domainOut, MemorySegment context) {
        MemorySegment fn = fabricOp(fabric, fi_ops_fabric.domain$offset());
        return missing(fn) ? NO_OP : fi_ops_fabric.domain.invoke(fn, fabric, info, domainOut, context);
    }

    /** fi_trywait(fabric, fids, count): {@code fabric->ops->trywait}; fids is an array of fid pointers. */
    public static int fi_trywait(MemorySegment fabric, MemorySegment fids, int count) {
        MemorySegment fn = fabricOp(fabric, fi_ops_fabric.trywait$offset());
        return missing(fn) ? NO_OP : fi_ops_fabric.trywait.invoke(fn, fabric, fids, count);
    }

    /** fi_passive_ep(fabric, info, &pep, context). */
    public static int fi_passive_ep(MemorySegment fabric, MemorySegment info, MemorySegment pepOut, MemorySegment context) {
        MemorySegment fn = fabricOp(fabric, fi_ops_fabric.passive_ep$offset());
        return missing(fn) ? NO_OP : fi_ops_fabric.passive_ep.invoke(fn, fabric, info, pepOut, context);
    }

    /** fi_eq_open(fabric, attr, &eq, context). */
    public static int fi_eq_open(MemorySegment fabric, MemorySegment attr, MemorySegment eqOut, MemorySegment context) {
        MemorySegment fn = fabricOp(fabric, fi_ops_fabric.eq_open$offset());
        return missing(fn) ? NO_OP : fi_ops_fabric.eq_open.invoke(fn, fabric, attr, eqOut, context);
    }

    // ---------------------------------------------------------------- domain ops

    private static MemorySegment domainOp(MemorySegment domain, long offset) {
        return op(fid_domain.ops(sized(domain, fid_domain.sizeof())), offset);
    }

    /** fi_endpoint(domain, info, &ep, context). */
    public static int fi_endpoint(MemorySegment domain, MemorySegment info, MemorySegment epOut, MemorySegment context) {
        MemorySegment fn = domainOp(domain, fi_ops_domain.endpoint$offset());
        return missing(fn) ? NO_OP : fi_ops_domain.endpoint.invoke(fn, domain, info, epOut, context);
    }

    /** fi_cq_open(domain, attr, &cq, context). */
    public static int fi_cq_open(MemorySegment domain, MemorySegment attr, MemorySegment cqOut, MemorySegment context) {
        MemorySegment fn = domainOp(domain, fi_ops_domain.cq_open$offset());
        return missing(fn) ? NO_OP : fi_ops_domain.cq_open.invoke(fn, domain, attr, cqOut, context);
    }

    /** fi_av_open(domain, attr, &av, context). */
    public static int fi_av_open(MemorySegment domain, MemorySegment attr, MemorySegment avOut, MemorySegment context) {
        MemorySegment fn = domainOp(domain, fi_ops_domain.av_open$offset());
        return missing(fn) ? NO_OP : fi_ops_domain.av_open.invoke(fn, domain, attr, avOut, context);
    }

    /** fi_cntr_open(domain, attr, &cntr, context). */
    public static int fi_cntr_open(MemorySegment domain, MemorySegment attr, MemorySegment cntrOut, MemorySegment context) {
        MemorySegment fn = domainOp(domain, fi_ops_domain.cntr_open$offset());
        return missing(fn) ? NO_OP : fi_ops_domain.cntr_open.invoke(fn, domain, attr, cntrOut, context);
    }

    /** fi_mr_reg(domain, buf, len, access, offset, requested_key, flags, &mr, context). */
    public static int fi_mr_reg(MemorySegment domain, MemorySegment buf, long len, long access, long offset,
                                long requestedKey, long flags, MemorySegment mrOut, MemorySegment context) {
        MemorySegment fn = op(fid_domain.mr(sized(domain, fid_domain.sizeof())), fi_ops_mr.reg$offset());
        return missing(fn) ? NO_OP
                : fi_ops_mr.reg.invoke(fn, domain, buf, len, access, offset, requestedKey, flags, mrOut, context);
    }

    /** fi_mr_regv(domain, iov, count, access, offset, requested_key, flags, &mr, context). */
    public static int fi_mr_regv(MemorySegment domain, MemorySegment iov, long count, long access, long offset,
                                 long requestedKey, long flags, MemorySegment mrOut, MemorySegment context) {
        MemorySegment fn = op(fid_domain.mr(sized(domain, fid_domain.sizeof())), fi_ops_mr.regv$offset());
        return missing(fn) ? NO_OP
                : fi_ops_mr.regv.invoke(fn, domain, iov, count, access, offset, requestedKey, flags, mrOut, context);
    }

    /** fi_mr_desc(mr). */
    public static MemorySegment fi_mr_desc(MemorySegment mr) {
        return fid_mr.mem_desc(sized(mr, fid_mr.sizeof()));
    }

    /** fi_mr_key(mr). */
    public static long fi_mr_key(MemorySegment mr) {
        return fid_mr.key(sized(mr, fid_mr.sizeof()));
    }

    // ---------------------------------------------------------------- av ops

    private static MemorySegment avOp(MemorySegment av, long offset) {
        return op(fid_av.ops(sized(av, fid_av.sizeof())), offset);
    }

    /** fi_av_insert(av, addr, count, fi_addr, flags, context). */
    public static int fi_av_insert(MemorySegment av, MemorySegment addr, long count, MemorySegment fiAddr, long flags,
                                   MemorySegment context) {
        MemorySegment fn = avOp(av, fi_ops_av.insert$offset());
        return missing(fn) ? NO_OP : fi_ops_av.insert.invoke(fn, av, addr, count, fiAddr, flags, context);
    }

    /** fi_av_remove(av, fi_addr, count, flags). */
    public static int fi_av_remove(MemorySegment av, MemorySegment fiAddr, long count, long flags) {
        MemorySegment fn = avOp(av, fi_ops_av.remove$offset());
        return missing(fn) ? NO_OP : fi_ops_av.remove.invoke(fn, av, fiAddr, count, flags);
    }

    /** fi_av_lookup(av, fi_addr, addr, &addrlen). */
    public static int fi_av_lookup(MemorySegment av, long fiAddr, MemorySegment addr, MemorySegment addrlen) {
        MemorySegment fn = avOp(av, fi_ops_av.lookup$offset());
        return missing(fn) ? NO_OP : fi_ops_av.lookup.invoke(fn, av, fiAddr, addr, addrlen);
    }

    /** fi_av_straddr(av, addr, buf, &len); NULL when the provider lacks it. */
    public static MemorySegment fi_av_straddr(MemorySegment av, MemorySegment addr, MemorySegment buf, MemorySegment len) {
        MemorySegment fn = avOp(av, fi_ops_av.straddr$offset());
        return missing(fn) ? MemorySegment.NULL : fi_ops_av.straddr.invoke(fn, av, addr, buf, len);
    }

    // ---------------------------------------------------------------- endpoint ops (fi_endpoint.h, fi_cm.h)

    private static MemorySegment epOps(MemorySegment ep, long offset) {
        return op(fid_ep.ops(sized(ep, fid_ep.sizeof())), offset);
    }

    private static MemorySegment cmOp(MemorySegment ep, long offset) {
        // fid_pep and fid_ep both keep cm right after ops, so a pep works here too
        return op(fid_ep.cm(sized(ep, fid_ep.cm$offset() + 8)), offset);
    }

    /** fi_cancel(fid, context). */
    public static long fi_cancel(MemorySegment ep, MemorySegment context) {
        MemorySegment fn = epOps(ep, fi_ops_ep.cancel$offset());
        return missing(fn) ? NO_OP : fi_ops_ep.cancel.invoke(fn, ep, context);
    }

    /** fi_setopt(fid, level, optname, optval, optlen). */
    public static int fi_setopt(MemorySegment ep, int level, int optname, MemorySegment optval, long optlen) {
        MemorySegment fn = epOps(ep, fi_ops_ep.setopt$offset());
        return missing(fn) ? NO_OP : fi_ops_ep.setopt.invoke(fn, ep, level, optname, optval, optlen);
    }

    /** fi_getopt(fid, level, optname, optval, &optlen). */
    public static int fi_getopt(MemorySegment ep, int level, int optname, MemorySegment optval, MemorySegment optlen) {
        MemorySegment fn = epOps(ep, fi_ops_ep.getopt$offset());
        return missing(fn) ? NO_OP : fi_ops_ep.getopt.invoke(fn, ep, level, optname, optval, optlen);
    }

    /** fi_getname(fid, addr, &addrlen). */
    public static int fi_getname(MemorySegment ep, MemorySegment addr, MemorySegment addrlen) {
        MemorySegment fn = cmOp(ep, fi_ops_cm.getname$offset());
        return missing(fn) ? NO_OP : fi_ops_cm.getname.invoke(fn, ep, addr, addrlen);
    }

    /** fi_setname(fid, addr, addrlen). */
    public static int fi_setname(MemorySegment ep, MemorySegment addr, long addrlen) {
        MemorySegment fn = cmOp(ep, fi_ops_cm.setname$offset());
        return missing(fn) ? NO_OP : fi_ops_cm.setname.invoke(fn, ep, addr, addrlen);
    }

    /** fi_getpeer(ep, addr, &addrlen). */
    public static int fi_getpeer(MemorySegment ep, MemorySegment addr, MemorySegment addrlen) {
        MemorySegment fn = cmOp(ep, fi_ops_cm.getpeer$offset());
        return missing(fn) ? NO_OP : fi_ops_cm.getpeer.invoke(fn, ep, addr, addrlen);
    }

    /** fi_connect(ep, addr, param, paramlen). */
    public static int fi_connect(MemorySegment ep, MemorySegment addr, MemorySegment param, long paramlen) {
        MemorySegment fn = cmOp(ep, fi_ops_cm.connect$offset());
        return missing(fn) ? NO_OP : fi_ops_cm.connect.invoke(fn, ep, addr, param, paramlen);
    }

    /** fi_listen(pep). */
    public static int fi_listen(MemorySegment pep) {
        MemorySegment fn = cmOp(pep, fi_ops_cm.listen$offset());
        return missing(fn) ? NO_OP : fi_ops_cm.listen.invoke(fn, pep);
    }

    /** fi_accept(ep, param, paramlen). */
    public static int fi_accept(MemorySegment ep, MemorySegment param, long paramlen) {
        MemorySegment fn = cmOp(ep, fi_ops_cm.accept$offset());
        return missing(fn) ? NO_OP : fi_ops_cm.accept.invoke(fn, ep, param, paramlen);
    }

    /** fi_reject(pep, handle, param, paramlen). */
    public static int fi_reject(MemorySegment pep, MemorySegment handle, MemorySegment param, long paramlen) {
        MemorySegment fn = cmOp(pep, fi_ops_cm.reject$offset());
        return missing(fn) ? NO_OP : fi_ops_cm.reject.invoke(fn, pep, handle, param, paramlen);
    }

    /** fi_shutdown(ep, flags). */
    public static int fi_shutdown(MemorySegment ep, long flags) {
        MemorySegment fn = cmOp(ep, fi_ops_cm.shutdown$offset());
        return missing(fn) ? NO_OP : fi_ops_cm.shutdown.invoke(fn, ep, flags);
    }

    // ---------------------------------------------------------------- data path (fi_endpoint.h, fi_tagged.h, fi_rma.h)

    /** The msg ops table member at {@code offset} of {@code ep}, FI_CHECK_OP applied. */
    public static MemorySegment msgOp(MemorySegment ep, long offset) {
        return op(fid_ep.msg(sized(ep, fid_ep.sizeof())), offset);
    }

    /** The tagged ops table member at {@code offset} of {@code ep}, FI_CHECK_OP applied. */
    public static MemorySegment taggedOp(MemorySegment ep, long offset) {
        return op(fid_ep.tagged(sized(ep, fid_ep.sizeof())), offset);
    }

    /** The rma ops table member at {@code offset} of {@code ep}, FI_CHECK_OP applied. */
    public static MemorySegment rmaOp(MemorySegment ep, long offset) {
        return op(fid_ep.rma(sized(ep, fid_ep.sizeof())), offset);
    }

    /** fi_send(ep, buf, len, desc, dest_addr, context). */
    public static long fi_send(MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long dest,
                               MemorySegment context) {
        MemorySegment fn = msgOp(ep, fi_ops_msg.send$offset());
        return missing(fn) ? NO_OP : fi_ops_msg.send.invoke(fn, ep, buf, len, desc, dest, context);
    }

    /** fi_recv(ep, buf, len, desc, src_addr, context). */
    public static long fi_recv(MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long src,
                               MemorySegment context) {
        MemorySegment fn = msgOp(ep, fi_ops_msg.recv$offset());
        return missing(fn) ? NO_OP : fi_ops_msg.recv.invoke(fn, ep, buf, len, desc, src, context);
    }

    /** fi_tsend(ep, buf, len, desc, dest_addr, tag, context). */
    public static long fi_tsend(MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long dest, long tag,
                                MemorySegment context) {
        MemorySegment fn = taggedOp(ep, fi_ops_tagged.send$offset());
        return missing(fn) ? NO_OP : fi_ops_tagged.send.invoke(fn, ep, buf, len, desc, dest, tag, context);
    }

    /** fi_trecv(ep, buf, len, desc, src_addr, tag, ignore, context). */
    public static long fi_trecv(MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long src, long tag,
                                long ignore, MemorySegment context) {
        MemorySegment fn = taggedOp(ep, fi_ops_tagged.recv$offset());
        return missing(fn) ? NO_OP : fi_ops_tagged.recv.invoke(fn, ep, buf, len, desc, src, tag, ignore, context);
    }

    /** fi_write(ep, buf, len, desc, dest_addr, addr, key, context). */
    public static long fi_write(MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long dest, long addr,
                                long key, MemorySegment context) {
        MemorySegment fn = rmaOp(ep, fi_ops_rma.write$offset());
        return missing(fn) ? NO_OP : fi_ops_rma.write.invoke(fn, ep, buf, len, desc, dest, addr, key, context);
    }

    /** fi_read(ep, buf, len, desc, src_addr, addr, key, context). */
    public static long fi_read(MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long src, long addr,
                               long key, MemorySegment context) {
        MemorySegment fn = rmaOp(ep, fi_ops_rma.read$offset());
        return missing(fn) ? NO_OP : fi_ops_rma.read.invoke(fn, ep, buf, len, desc, src, addr, key, context);
    }

    // ---------------------------------------------------------------- cq, eq, cntr (fi_eq.h)

    /** The cq ops table member at {@code offset}, FI_CHECK_OP applied. */
    public static MemorySegment cqOp(MemorySegment cq, long offset) {
        return op(fid_cq.ops(sized(cq, fid_cq.sizeof())), offset);
    }

    /** The eq ops table member at {@code offset}, FI_CHECK_OP applied. */
    public static MemorySegment eqOp(MemorySegment eq, long offset) {
        return op(fid_eq.ops(sized(eq, fid_eq.sizeof())), offset);
    }

    /** The cntr ops table member at {@code offset}, FI_CHECK_OP applied. */
    public static MemorySegment cntrOp(MemorySegment cntr, long offset) {
        return op(fid_cntr.ops(sized(cntr, fid_cntr.sizeof())), offset);
    }

    /** fi_cq_read(cq, buf, count). */
    public static long fi_cq_read(MemorySegment cq, MemorySegment buf, long count) {
        MemorySegment fn = cqOp(cq, fi_ops_cq.read$offset());
        return missing(fn) ? NO_OP : fi_ops_cq.read.invoke(fn, cq, buf, count);
    }

    /** fi_cq_readerr(cq, buf, flags). */
    public static long fi_cq_readerr(MemorySegment cq, MemorySegment buf, long flags) {
        MemorySegment fn = cqOp(cq, fi_ops_cq.readerr$offset());
        return missing(fn) ? NO_OP : fi_ops_cq.readerr.invoke(fn, cq, buf, flags);
    }

    /** fi_cq_strerror(cq, prov_errno, err_data, buf, len); NULL when the provider lacks it. */
    public static MemorySegment fi_cq_strerror(MemorySegment cq, int provErrno, MemorySegment errData, MemorySegment buf,
                                               long len) {
        MemorySegment fn = cqOp(cq, fi_ops_cq.strerror$offset());
        return missing(fn) ? MemorySegment.NULL : fi_ops_cq.strerror.invoke(fn, cq, provErrno, errData, buf, len);
    }

    /** fi_eq_read(eq, &event, buf, len, flags). */
    public static long fi_eq_read(MemorySegment eq, MemorySegment event, MemorySegment buf, long len, long flags) {
        MemorySegment fn = eqOp(eq, fi_ops_eq.read$offset());
        return missing(fn) ? NO_OP : fi_ops_eq.read.invoke(fn, eq, event, buf, len, flags);
    }

    /** fi_eq_sread(eq, &event, buf, len, timeout, flags). */
    public static long fi_eq_sread(MemorySegment eq, MemorySegment event, MemorySegment buf, long len, int timeout,
                                   long flags) {
        MemorySegment fn = eqOp(eq, fi_ops_eq.sread$offset());
        return missing(fn) ? NO_OP : fi_ops_eq.sread.invoke(fn, eq, event, buf, len, timeout, flags);
    }

    /** fi_eq_readerr(eq, buf, flags). */
    public static long fi_eq_readerr(MemorySegment eq, MemorySegment buf, long flags) {
        MemorySegment fn = eqOp(eq, fi_ops_eq.readerr$offset());
        return missing(fn) ? NO_OP : fi_ops_eq.readerr.invoke(fn, eq, buf, flags);
    }

    /** fi_cntr_read(cntr); 0 when the provider lacks it. */
    public static long fi_cntr_read(MemorySegment cntr) {
        MemorySegment fn = cntrOp(cntr, fi_ops_cntr.read$offset());
        return missing(fn) ? 0 : fi_ops_cntr.read.invoke(fn, cntr);
    }

    /** fi_cntr_add(cntr, value). */
    public static int fi_cntr_add(MemorySegment cntr, long value) {
        MemorySegment fn = cntrOp(cntr, fi_ops_cntr.add$offset());
        return missing(fn) ? NO_OP : fi_ops_cntr.add.invoke(fn, cntr, value);
    }
}
