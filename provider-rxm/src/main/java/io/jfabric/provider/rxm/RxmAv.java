package io.jfabric.provider.rxm;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.util.AvInsertEvents;
import io.jfabric.util.Sockaddr;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * ofi_rxm's address vector ({@code struct rxm_av} over util_av): peer listening addresses (raw sockaddr
 * bytes) indexed by fi_addr. TABLE and MAP both hand out insertion indexes, as libfabric's util AV does.
 * Endpoints look addresses up here when they first send to an fi_addr.
 */
final class RxmAv implements AddressVector {
    private final RxmDomain domain;
    private final AvAttr attr;
    private final List<byte[]> addrs = new ArrayList<>();
    private EventQueue eq;
    private int boundEndpoints;
    private boolean closed;
    private volatile long version;
    private volatile int removals;

    RxmAv(RxmDomain domain, AvAttr attr) {
        this.domain = domain;
        this.attr = attr == null ? new AvAttr() : attr;
    }

    @Override
    public AvAttr attr() {
        return attr;
    }

    @Override
    public void bind(EventQueue eq) {
        this.eq = eq;
    }

    /** Changes on every insert and remove. */
    long version() {
        return version;
    }

    /** Changes on every remove: endpoints then forget the removed fi_addrs (RxmCm.dropRemovedIfAny). */
    int removals() {
        return removals;
    }

    /** The address of {@code fiAddr}, or null if it was never inserted or has been removed. */
    byte[] addr(long fiAddr) {
        synchronized (addrs) {
            return fiAddr >= 0 && fiAddr < addrs.size() ? addrs.get((int) fiAddr) : null;
        }
    }

    /** The fi_addr of {@code addr}, or FI_ADDR_NOTAVAIL; for FI_SOURCE on peers that connected first. */
    long fiAddrOf(byte[] addr) {
        String k = Sockaddr.key(addr);
        synchronized (addrs) {
            for (int i = 0; i < addrs.size(); i++) {
                byte[] a = addrs.get(i);
                if (a != null && Sockaddr.key(a).equals(k)) {
                    return i;
                }
            }
        }
        return Fabrics.ADDR_NOTAVAIL;
    }

    @Override
    public int insert(byte[][] in, long[] fiAddrOut, long flags, Object context) {
        AvInsertEvents.requireEq(attr, eq);
        int[] errs = (flags & Fabrics.SYNC_ERR) != 0 && context instanceof int[] e ? e : null;
        int ok = 0;
        synchronized (addrs) {
            for (int i = 0; i < in.length; i++) {
                byte[] a = in[i];
                long fi = Fabrics.ADDR_NOTAVAIL;
                int err = 0;
                if (Sockaddr.validate(a) != null) { // family, length and port, not just length
                    err = Errno.EINVAL;
                } else {
                    fi = addrs.size();
                    addrs.add(a.clone());
                    ok++;
                    version++;
                }
                if (fiAddrOut != null && i < fiAddrOut.length) {
                    fiAddrOut[i] = fi;
                }
                if (errs != null && i < errs.length) {
                    errs[i] = err;
                }
            }
        }
        return AvInsertEvents.report(attr, eq, this, context, ok);
    }

    @Override
    public int insertSvc(String node, String service, long[] fiAddrOut, long flags, Object context) {
        byte[] a;
        try {
            a = Sockaddr.of(InetAddress.getByName(node), Integer.parseInt(service));
        } catch (UnknownHostException | NumberFormatException e) {
            throw new FabricException(Errno.EINVAL, "cannot resolve " + node + ":" + service
                    + "; give a host name or IP address and a numeric port");
        }
        return insert(new byte[][] {a}, fiAddrOut, flags, context);
    }

    @Override
    public int remove(long[] fiAddrs, long flags) {
        synchronized (addrs) {
            for (long f : fiAddrs) {
                if (f < 0 || f >= addrs.size() || addrs.get((int) f) == null) {
                    return -Errno.EINVAL;
                }
            }
            for (long f : fiAddrs) {
                addrs.set((int) f, null);
            }
            version++;
            removals++;
        }
        return 0;
    }

    @Override
    public byte[] lookup(long fiAddr) {
        byte[] a = addr(fiAddr);
        if (a == null) {
            throw new FabricException(Errno.ENOENT, "fi_addr " + fiAddr + " is not in this AV");
        }
        return a.clone();
    }

    @Override
    public String straddr(byte[] addr) {
        if (addr == null) {
            return "(null)";
        }
        return Sockaddr.straddr(addr);
    }

    synchronized void bindEndpoint() {
        boundEndpoints++;
    }

    synchronized void unbindEndpoint() {
        boundEndpoints--;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (boundEndpoints > 0) {
            throw new FabricException(Errno.EBUSY, "close the " + boundEndpoints
                    + " endpoint(s) bound to this AV first");
        }
        closed = true;
        domain.release();
    }
}
