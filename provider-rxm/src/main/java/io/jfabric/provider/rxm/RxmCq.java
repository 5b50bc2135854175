package io.jfabric.provider.rxm;

import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * ofi_rxm's completion queue (util_cq as rxm uses it): an ordered ring of preallocated entries in which
 * errors keep their place (a read stops at an error and returns -EAVAIL until readError takes it). Every
 * read first drives the progress of the endpoints bound to it, under the domain lock. The ring grows
 * (rarely, on the control path) instead of overrunning, since rxm bounds what is outstanding anyway.
 */
final class RxmCq implements CompletionQueue {
    private final RxmDomain domain;
    private final CqAttr attr;
    private final List<RxmEndpoint> endpoints = new ArrayList<>();
    private RxmEndpoint[] progressList = new RxmEndpoint[0];
    private CqErrEntry[] ring;
    private boolean[] isError;
    private int head;
    private int count;
    private volatile boolean signaled;
    private boolean closed;

    RxmCq(RxmDomain domain, CqAttr attr) {
        this.domain = domain;
        this.attr = attr == null ? new CqAttr() : attr;
        int size = (int) Math.max(64, Math.min(this.attr.size == 0 ? 4096 : this.attr.size, 1 << 20));
        ring = new CqErrEntry[size];
        isError = new boolean[size];
        for (int i = 0; i < size; i++) {
            ring[i] = new CqErrEntry();
        }
    }

    @Override
    public CqAttr attr() {
        return attr;
    }

    void attach(RxmEndpoint ep) {
        synchronized (domain.lock) {
            if (!endpoints.contains(ep)) {
                endpoints.add(ep);
                progressList = endpoints.toArray(new RxmEndpoint[0]);
            }
        }
    }

    void detach(RxmEndpoint ep) {
        synchronized (domain.lock) {
            endpoints.remove(ep);
            progressList = endpoints.toArray(new RxmEndpoint[0]);
        }
    }

    /** Appends a success entry; caller holds the domain lock. */
    void write(Object context, long flags, long len, long buf, long data, long tag, long srcAddr) {
        CqErrEntry e = slot(false);
        e.set(context, flags, len, buf, data, tag);
        e.srcAddr = srcAddr;
    }

    /** Appends an error entry; caller holds the domain lock. {@code err} is positive. */
    void writeError(Object context, long flags, long len, long olen, int err, long tag, long data) {
        CqErrEntry e = slot(true);
        e.setError(context, flags, len, olen, err, -err);
        e.tag = tag;
        e.data = data;
        e.srcAddr = Fabrics.ADDR_NOTAVAIL;
    }

    private CqErrEntry slot(boolean error) {
        if (count == ring.length) {
            grow();
        }
        int i = (head + count) % ring.length;
        count++;
        isError[i] = error;
        return ring[i];
    }

    private void grow() {
        int n = ring.length * 2;
        CqErrEntry[] r = new CqErrEntry[n];
        boolean[] e = new boolean[n];
        for (int i = 0; i < n; i++) {
            if (i < count) {
                r[i] = ring[(head + i) % ring.length];
                e[i] = isError[(head + i) % ring.length];
            } else {
                r[i] = new CqErrEntry();
            }
        }
        ring = r;
        isError = e;
        head = 0;
    }

    private void progress() {
        RxmEndpoint[] eps = progressList;
        for (RxmEndpoint ep : eps) {
            ep.progress();
        }
    }

    @Override
    public int read(CqEntry[] entries, int n) {
        return readInternal(entries, n, false);
    }

    @Override
    public int read(CqEntry entry) {
        synchronized (domain.lock) {
            progress();
            if (count == 0) {
                return -Errno.EAGAIN;
            }
            if (isError[head]) {
                return -Errno.EAVAIL;
            }
            copyOut(entry, false);
            return 1;
        }
    }

    @Override
    public int readFrom(CqEntry[] entries, int n) {
        return readInternal(entries, n, true);
    }

    private int readInternal(CqEntry[] entries, int n, boolean from) {
        synchronized (domain.lock) {
            progress();
            if (n == 0) {
                return 0;
            }
            if (count == 0) {
                return -Errno.EAGAIN;
            }
            int got = 0;
            while (got < n && count > 0 && !isError[head]) {
                copyOut(entries[got++], from);
            }
            return got == 0 ? -Errno.EAVAIL : got;
        }
    }

    private void copyOut(CqEntry out, boolean from) {
        CqErrEntry e = ring[head];
        long src = out.srcAddr;
        out.copyFrom(e);
        out.srcAddr = from ? e.srcAddr : src;
        e.context = null;
        head = (head + 1) % ring.length;
        count--;
    }

    @Override
    public int readError(CqErrEntry entry, long flags) {
        synchronized (domain.lock) {
            if (count == 0 || !isError[head]) {
                progress();
            }
            if (count == 0 || !isError[head]) {
                return -Errno.EAGAIN;
            }
            entry.copyFrom(ring[head]);
            ring[head].context = null;
            head = (head + 1) % ring.length;
            count--;
            return 1;
        }
    }

    @Override
    public int sread(CqEntry[] entries, int n, int timeoutMillis) {
        return sreadInternal(entries, n, timeoutMillis, false);
    }

    @Override
    public int sreadFrom(CqEntry[] entries, int n, int timeoutMillis) {
        return sreadInternal(entries, n, timeoutMillis, true);
    }

    /** Polls with progress, parking between polls (progressively longer, up to 1 ms) rather than spinning. */
    private int sreadInternal(CqEntry[] entries, int n, int timeoutMillis, boolean from) {
        long deadline = timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000L;
        long park = 1_000;
        signaled = false;
        while (true) {
            int rc = readInternal(entries, n, from);
            if (rc != -Errno.EAGAIN) {
                return rc;
            }
            if (signaled) {
                signaled = false;
                return -Errno.EAGAIN;
            }
            long now = System.nanoTime();
            if (now >= deadline) {
                return -Errno.EAGAIN;
            }
            LockSupport.parkNanos(Math.min(park, deadline - now));
            park = Math.min(park * 2, 1_000_000);
        }
    }

    @Override
    public void signal() {
        signaled = true;
    }

    @Override
    public void close() {
        synchronized (domain.lock) {
            if (closed) {
                return;
            }
            if (!endpoints.isEmpty()) {
                throw new FabricException(Errno.EBUSY, "close the " + endpoints.size()
                        + " endpoint(s) bound to this CQ first");
            }
            closed = true;
        }
        domain.release();
    }

    /** Entries waiting, for state dumps. */
    int pending() {
        synchronized (domain.lock) {
            return count;
        }
    }
}
