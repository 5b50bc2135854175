package io.jfabric.provider.rxm;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Caps;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.OpFlags;
import io.jfabric.provider.rxm.wire.AtomicHeader;
import io.jfabric.provider.rxm.wire.RxmPacket;
import io.jfabric.util.AtomicRequest;
import io.jfabric.util.AtomicTarget;
import io.jfabric.util.FabricLog;
import io.jfabric.util.UtilDomain;

import java.lang.foreign.MemorySegment;

/**
 * ofi_rxm's atomics, both sides, on libfabric 1.17's wire (prov/rxm/src/rxm_atomic.c and rxm_cq.c): the
 * initiator copies the remote ranges, the operands and the compare operands into one rxm_ctrl_atomic packet on
 * the peer's core connection; the target checks every range with provider-util's {@link AtomicTarget}, applies
 * the operation to its core domain's registered memory and answers with an rxm_ctrl_atomic_resp that carries the
 * status and, for fetch and compare, the previous elements. The initiator's operation completes when that answer
 * arrives (so every rxm atomic is delivery complete), with the target's errno when it refused.
 *
 * <p>Atomicity: the target applies a request in the progress pass that read it, under the domain lock, so two
 * rxm atomics on endpoints of one domain never interleave; integer and floating-point elements are in addition
 * updated by a compare-and-set on the element itself ({@code AtomicUpdate}), which keeps them atomic against
 * other domains and threads of the process. A request is checked whole before any of its ranges is applied, so
 * a refused one changes no target byte.
 *
 * <p>Limits as libfabric's: four ranges and four buffers of each kind, operands plus compare operands up to
 * buffer_size minus the 96-byte atomic header. Long double types are refused (EOPNOTSUPP): Java has no 80-bit
 * arithmetic. The core domain finds a region by key ({@link UtilDomain#region}): tcp's key map, verbs' table of
 * regions by rkey. The target's elements are changed by the CPU, never by the adapter, so a core's own hardware
 * atomics (verbs) are not atomic against these; rxm does not use them.
 */
final class RxmAtomic {
    private static final System.Logger LOG = FabricLog.logger("ofi_rxm");
    private final RxmShared s;
    private final AtomicTarget target;
    private final long maxBytes;
    private final boolean offered;

    RxmAtomic(RxmShared s) {
        this.s = s;
        UtilDomain<?> core = s.domain.core instanceof UtilDomain<?> u ? u : null;
        this.target = new AtomicTarget(core == null ? key -> null : core::region);
        this.maxBytes = s.bufferSize - AtomicHeader.REQUEST_HEADER;
        this.offered = (s.caps & Caps.ATOMIC) != 0;
    }

    /** rxm_ep_query_atomic's count: the most elements of {@code datatype} one operation of {@code kind} holds. */
    long limit(int kind, AtomicDatatype datatype) {
        if (!offered) {
            return -Errno.ENOSYS;
        }
        if (refused(datatype)) {
            return -Errno.EOPNOTSUPP;
        }
        long n = (kind == AtomicRequest.COMPARE ? maxBytes / 2 : maxBytes) / datatype.size();
        return n == 0 ? -Errno.EOPNOTSUPP : n;
    }

    private static boolean refused(AtomicDatatype t) {
        return t == AtomicDatatype.LONG_DOUBLE || t == AtomicDatatype.LONG_DOUBLE_COMPLEX;
    }

    // ---- initiator -------------------------------------------------------------------------------

    /** rxm_ep_atomic_common: one request packet; the op waits for the target's response. */
    int post(AtomicRequest r) {
        if (r.rmaCount > AtomicHeader.IOC_LIMIT || r.count > AtomicHeader.IOC_LIMIT
                || r.compareCount > AtomicHeader.IOC_LIMIT || r.resultCount > AtomicHeader.IOC_LIMIT
                || (r.flags & OpFlags.REMOTE_CQ_DATA) != 0) {
            return -Errno.EINVAL;
        }
        RxmTransmit transmit = s.transmit;
        RxmConnection<Endpoint> c = transmit.connected(r.peer, false);
        if (c == null) {
            return transmit.refusal();
        }
        ConnData cd = RxmCm.data(c);
        if (!cd.deferred.isEmpty()) {
            s.progress.run();
            if (!cd.deferred.isEmpty() || !c.isConnected()) {
                return -Errno.EAGAIN;
            }
        }
        TxOp op = s.pools.acquireTxOp();
        if (op == null) {
            s.progress.run();
            return -Errno.EAGAIN;
        }
        long bytes = r.bytes();
        long operands = r.kind == AtomicRequest.FETCH && r.op == AtomicOp.ATOMIC_READ ? 0 : bytes;
        long compares = r.kind == AtomicRequest.COMPARE ? bytes : 0;
        long payload = AtomicHeader.REQUEST_HEADER + operands + compares;
        TxBuf tb = s.pools.acquireTxBuf();
        MemorySegment m = tb.mem;
        RxmPacket.write(tb.hdr, RxmPacket.CTRL_ATOMIC, c.remoteIndex(), op.index, AtomicHeader.OP_ATOMIC + r.kind,
                0, payload, 0, 0);
        AtomicHeader.setAtomic(tb.hdr, r.datatype.value(), r.op.value(), r.rmaCount);
        for (int i = 0; i < AtomicHeader.IOC_LIMIT; i++) {
            if (i < r.rmaCount) {
                AtomicHeader.setIoc(m, i, r.rmaIoc[i].addr, r.rmaIoc[i].count, r.rmaIoc[i].key);
            } else {
                AtomicHeader.setIoc(m, i, 0, 0, 0);
            }
        }
        long at = gather(m, AtomicHeader.REQUEST_DATA, r.iov, operands == 0 ? 0 : r.count);
        gather(m, at, r.compare, compares == 0 ? 0 : r.compareCount);
        tb.pending = tb.packet(payload);
        tb.conn = c;
        tb.cd = cd;
        tb.generation = cd.generation;
        int rc = transmit.post(tb);
        if (rc != 0) {
            s.pools.releaseTxBuf(tb);
            s.pools.releaseTxOp(op);
            if (rc == -Errno.EAGAIN) {
                s.progress.run();
            }
            return rc;
        }
        op.context = r.context;
        op.cqFlags = OpFlags.ATOMIC | (r.kind == AtomicRequest.WRITE ? OpFlags.WRITE : OpFlags.READ);
        op.report = s.bindings.txWantsCompletion(r.flags);
        op.state = TxOp.WAIT_ATOMIC_RESP;
        op.proto = -1;
        op.length = r.kind == AtomicRequest.WRITE ? 0 : bytes;
        op.iovCount = r.kind == AtomicRequest.WRITE ? 0 : r.resultCount;
        for (int i = 0; i < op.iovCount; i++) {
            op.iov[i] = r.result[i];
        }
        op.conn = c;
        op.cd = cd;
        op.generation = cd.generation;
        op.pending = 1;
        cd.link(op);
        return 0;
    }

    private static long gather(MemorySegment to, long at, MemorySegment[] from, int n) {
        for (int i = 0; i < n; i++) {
            long len = from[i].byteSize();
            MemorySegment.copy(from[i], 0, to, at, len);
            at += len;
        }
        return at;
    }

    /** rxm_handle_atomic_resp: the results go to the op's result buffers and the op completes. */
    void onResponse(RxBuf rx, RxmConnection<Endpoint> c) {
        MemorySegment p = rx.mem;
        long msgId = RxmPacket.msgId(p);
        TxOp op = s.pools.txOp(msgId);
        if (op == null || op.state != TxOp.WAIT_ATOMIC_RESP || op.conn != c
                || rx.len < AtomicHeader.RESPONSE_DATA) {
            LOG.log(System.Logger.Level.WARNING, "ignoring an atomic response for message {0} from {1}", msgId,
                    c.peer());
            return;
        }
        int status = AtomicHeader.status(p);
        int err = status < 0 ? -status : status;
        long len = AtomicHeader.resultLen(p);
        if (err == 0 && (len != op.length || rx.len < AtomicHeader.RESPONSE_DATA + len)) {
            err = Errno.EIO; // rxm's "result size mismatch": nothing is copied
        }
        if (err == 0) {
            long from = AtomicHeader.RESPONSE_DATA;
            for (int i = 0; i < op.iovCount; i++) {
                MemorySegment dst = op.iov[i];
                MemorySegment.copy(p, from, dst, 0, dst.byteSize());
                from += dst.byteSize();
            }
        }
        op.state = TxOp.ACTIVE;
        s.transmit.step(op, err);
    }

    // ---- target ----------------------------------------------------------------------------------

    /**
     * rxm_handle_atomic_req: checks every range, applies the operation range by range with the results written
     * straight into the response, and answers; a refusal answers with its errno and changes nothing.
     */
    void onRequest(RxBuf rx, RxmConnection<Endpoint> c, ConnData cd) {
        MemorySegment p = rx.mem;
        int pktOp = RxmPacket.op(p);
        int kind = pktOp - AtomicHeader.OP_ATOMIC;
        int datatype = AtomicHeader.datatype(p);
        int atomicOp = AtomicHeader.atomicOp(p);
        int n = AtomicHeader.iocCount(p);
        TxBuf tb = s.pools.acquireTxBuf();
        long total = 0;
        int status = kind < AtomicRequest.WRITE || kind > AtomicRequest.COMPARE || n < 1
                || n > AtomicHeader.IOC_LIMIT ? Errno.EINVAL : 0;
        AtomicDatatype t = AtomicDatatype.of(datatype);
        if (status == 0 && (t == null || refused(t))) {
            status = Errno.EOPNOTSUPP;
        }
        for (int i = 0; i < n && status == 0; i++) {
            status = target.check(kind, datatype, atomicOp, AtomicHeader.iocKey(p, i), AtomicHeader.iocAddr(p, i),
                    AtomicHeader.iocCount(p, i));
            total += AtomicHeader.iocCount(p, i);
        }
        long bytes = status == 0 ? total * t.size() : 0;
        long operands = kind == AtomicRequest.FETCH && atomicOp == AtomicOp.ATOMIC_READ.value() ? 0 : bytes;
        long compares = kind == AtomicRequest.COMPARE ? bytes : 0;
        long resultLen = kind == AtomicRequest.WRITE ? 0 : bytes;
        if (status == 0 && (rx.len < AtomicHeader.REQUEST_DATA + operands + compares
                || AtomicHeader.RESPONSE_DATA + resultLen > tb.mem.byteSize())) {
            status = Errno.EINVAL;
        }
        if (status == 0) {
            long off = 0;
            for (int i = 0; i < n; i++) {
                target.check(kind, datatype, atomicOp, AtomicHeader.iocKey(p, i), AtomicHeader.iocAddr(p, i),
                        AtomicHeader.iocCount(p, i));
                long src = AtomicHeader.REQUEST_DATA + off;
                target.apply(operands == 0 ? null : p, src, compares == 0 ? null : p, src + operands,
                        resultLen == 0 ? null : tb.mem, AtomicHeader.RESPONSE_DATA + off);
                off += AtomicHeader.iocCount(p, i) * t.size();
            }
        } else {
            resultLen = 0;
        }
        long payload = AtomicHeader.RESPONSE_HEADER + resultLen;
        RxmPacket.write(tb.hdr, RxmPacket.CTRL_ATOMIC_RESP, c.remoteIndex(), RxmPacket.msgId(p), pktOp, 0, payload,
                0, 0);
        AtomicHeader.setAtomic(tb.hdr, datatype, atomicOp, 0);
        AtomicHeader.setResponse(tb.mem, -status, (int) resultLen);
        tb.pending = tb.packet(payload);
        tb.conn = c;
        tb.cd = cd;
        tb.generation = cd.generation;
        s.transmit.postOrDefer(tb);
    }
}
