package io.jfabric.provider.rxm;

import io.jfabric.provider.rxm.wire.CmData;
import io.jfabric.provider.rxm.wire.RndvHeader;
import io.jfabric.util.Cma;
import io.jfabric.util.FabricLog;
import io.jfabric.util.SameHostToken;

import java.lang.foreign.MemorySegment;

/**
 * Rendezvous between two jfabric processes on one host, over a TCP core: the receiver copies the sender's
 * registered buffers straight out of its memory with process_vm_readv, one copy, where the core's RMA read
 * would carry them through two sockets (a copy into the kernel and one out, plus the framing). The protocol
 * and its packets stay libfabric's; only where the bytes come from changes, and only between peers that have
 * proved they can do it:
 * <ul>
 * <li>each endpoint announces its pid and a token (an address in its memory and the value there) in its
 *     connect or accept data ({@link CmData.SameHost});</li>
 * <li>the other side reads the token through process_vm_readv when the connection comes up; only if the value
 *     matches is the peer on this host, of this user and reachable, and the connection is marked;</li>
 * <li>a rendezvous request on a marked connection whose buffers are all native says so in its ctrl_data
 *     ({@link #NATIVE_BUFFERS}) and names them by address even where the core addresses registrations by offset
 *     (tcp), since heap buffers have no stable address; the receiver then copies, and on any failure (a bad
 *     range, the peer gone) falls back to the core's reads, which report errors as before.</li>
 * </ul>
 * libfabric peers announce nothing and never see the marker. One instance per endpoint, used under its lock.
 */
final class RxmSameHost implements AutoCloseable {
    private static final System.Logger LOG = FabricLog.logger("ofi_rxm");

    /** ctrl_data of a rendezvous request whose advertised addresses are native memory of the sender. */
    static final long NATIVE_BUFFERS = 0x4A46_4E41_5449_5645L;

    private final Cma cma = new Cma();
    /** Rendezvous received by a copy, and those that fell back to the core: for diagnostics and tests. */
    private long copies;
    private long fallbacks;

    private RxmSameHost() {
    }

    /**
     * The endpoint's instance, or null when the copy does not apply: turned off, no process_vm_readv, or a core
     * that is not TCP (verbs reads remote memory itself, with no copy through the kernel).
     */
    static RxmSameHost open(boolean tcpCore) {
        if (!tcpCore || !Cma.linked() || !RxmParams.sameHostCopy()) {
            return null;
        }
        return new RxmSameHost();
    }

    /** What this endpoint announces to its peers. */
    CmData.SameHost announcement() {
        return new CmData.SameHost(SameHostToken.pid(), SameHostToken.address(), SameHostToken.value());
    }

    /** The pid to copy from for a peer that announced {@code peer}, or 0 when its token cannot be read back. */
    int verify(CmData.SameHost peer) {
        if (peer == null) {
            return 0;
        }
        int pid = SameHostToken.verify(cma, peer.pid(), peer.tokenAddress(), peer.token());
        if (pid == 0) {
            LOG.log(System.Logger.Level.DEBUG, "peer pid {0} is not reachable by process_vm_readv; its rendezvous "
                    + "data comes through the core", peer.pid());
        }
        return pid;
    }

    /**
     * Copies the first {@code target} bytes the request {@code h} advertises into {@code dst}. Returns false,
     * having copied some or none, when a copy fails or a buffer is not native; the caller then reads it all
     * through the core.
     */
    boolean copy(int pid, MemorySegment h, MemorySegment[] dst, int dstCount, long target) {
        int local = cma.localSegments(dst, dstCount, 0, target);
        int remoteCount = Math.min(RndvHeader.count(h), Cma.VECTOR_LIMIT);
        int remote = 0;
        long left = target;
        for (; remote < remoteCount && left > 0; remote++) {
            long n = Math.min(RndvHeader.len(h, remote), left);
            cma.remotePiece(remote, RndvHeader.addr(h, remote), n);
            left -= n;
        }
        if (local < 0 || left != 0) {
            fallbacks++; // a heap buffer, or lists the vector cannot name
            return false;
        }
        // one process_vm_readv however the two lists' boundaries fall
        int rc = cma.readVector(pid, local, remote);
        if (rc != 0) {
            LOG.log(System.Logger.Level.DEBUG, "process_vm_readv from pid {0} failed ({1}); reading through "
                    + "the core", pid, io.jfabric.Errno.name(-rc));
            fallbacks++;
            return false;
        }
        copies++;
        return true;
    }

    @Override
    public void close() {
        cma.close();
    }

    @Override
    public String toString() {
        return "same-host copy (copies " + copies + ", fallbacks " + fallbacks + ")";
    }
}
