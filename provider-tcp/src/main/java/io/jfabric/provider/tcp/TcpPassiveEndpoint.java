package io.jfabric.provider.tcp;

import io.jfabric.util.Sockaddr;
import io.jfabric.util.jfr.ConnectionEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.PassiveEndpoint;
import io.jfabric.provider.tcp.wire.CmMessage;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The tcp passive endpoint ({@code fi_passive_ep}): a listening socket. Each accepted socket's connreq
 * (ctrl header v3 plus up to 256 bytes of CM data) is read without blocking; a complete one raises
 * FI_CONNREQ on the bound EQ with an info whose {@code handle} is the request and whose dest_addr is the
 * peer. {@link #reject} answers with a nack carrying the reject data. Mirrors {@code tcpx_pep_*}; the port
 * comes from the info's src_addr or, when that is 0, from FI_TCP_PORT_LOW_RANGE..FI_TCP_PORT_HIGH_RANGE.
 * A peer that sends no complete connreq within 10 s, or sends a malformed one, is dropped.
 */
final class TcpPassiveEndpoint implements PassiveEndpoint, Progressable {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger(TcpParams.PROV);
    private static final long REQUEST_TIMEOUT = TimeUnit.SECONDS.toNanos(10);

    private final TcpFabric fabric;
    private final FabricInfo info;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<ConnRequest> reading = new ArrayList<>();
    private InetSocketAddress name;
    private ServerSocketChannel server;
    /**
     * Readiness of {@link #server} alone: ServerSocketChannel.accept() allocates a FileDescriptor and an
     * address array on every call, even when nothing is pending, and layered providers (rxm) poll the EQ
     * periodically, so accept only runs when this says a connection is waiting.
     */
    private Selector acceptReady;
    private TcpEq eq;
    /** EQ entries left for CONNECTED/SHUTDOWN events when deciding whether to take another request. */
    private static final int EQ_HEADROOM = 16;
    private volatile boolean closed;
    private SelectionKey serverKey;

    TcpPassiveEndpoint(TcpFabric fabric, FabricInfo info) {
        this.fabric = fabric;
        this.info = info;
        this.name = info.srcAddr != null ? Sockaddr.toInet(info.srcAddr) : new InetSocketAddress(0);
    }

    @Override
    public void bind(EventQueue q) {
        if (!(q instanceof TcpEq t)) {
            throw new FabricException(Errno.EINVAL, "the EQ must come from the same tcp fabric");
        }
        lock.lock();
        try {
            if (eq != null) {
                throw new FabricException(Errno.EINVAL, "passive endpoint is already bound to an EQ");
            }
            t.acquire();
            eq = t;
            t.progress.add(this);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void listen() {
        lock.lock();
        try {
            if (eq == null) {
                throw new FabricException(Errno.ENOEQ, "bind the passive endpoint to an EQ before fi_listen");
            }
            if (server != null) {
                throw new FabricException(Errno.EINVAL, "already listening on " + Sockaddr.straddr(name));
            }
            // an IPv4 name gets an IPv4 socket (as libfabric opens its socket in the address's family): a
            // dual-stack socket would carry IPv4 peers as mapped addresses through the IPv6 code paths
            ServerSocketChannel s = name.getAddress() instanceof java.net.Inet4Address
                    ? ServerSocketChannel.open(java.net.StandardProtocolFamily.INET) : ServerSocketChannel.open();
            s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            bindInRange(s);
            s.configureBlocking(false);
            Selector sel = Selector.open();
            s.register(sel, SelectionKey.OP_ACCEPT);
            acceptReady = sel;
            server = s;
            name = (InetSocketAddress) s.getLocalAddress();
            serverKey = fabric.register(s, SelectionKey.OP_ACCEPT, this);
            LOG.log(System.Logger.Level.DEBUG, "listening on {0}", Sockaddr.straddr(name));
        } catch (IOException e) {
            throw new FabricException(Errno.EIO, "cannot listen on " + Sockaddr.straddr(name) + ": " + e.getMessage());
        } finally {
            lock.unlock();
        }
    }

    private void bindInRange(ServerSocketChannel s) throws IOException {
        int low = TcpParams.PORT_LOW.get();
        int high = TcpParams.PORT_HIGH.get();
        InetAddress ip = name.getAddress();
        if (name.getPort() != 0 || low <= 0 || high < low) {
            try {
                s.bind(name, 1024);
            } catch (BindException e) {
                s.close();
                throw new FabricException(Errno.EADDRINUSE, "cannot bind " + Sockaddr.straddr(name) + ": "
                        + e.getMessage() + "; pick another port or set port 0");
            }
            return;
        }
        int span = high - low + 1;
        int start = (int) (Math.floorMod(System.nanoTime(), span));
        for (int i = 0; i < span; i++) {
            int port = low + (start + i) % span;
            try {
                s.bind(new InetSocketAddress(ip, port), 1024);
                return;
            } catch (BindException e) {
                // in use: try the next port of the range
            }
        }
        s.close();
        throw new FabricException(Errno.EADDRNOTAVAIL, "no free port in FI_TCP_PORT_LOW_RANGE..HIGH_RANGE = "
                + low + ".." + high);
    }

    @Override
    public int progressData() {
        return 0;
    }

    @Override
    public int progressControl() {
        if (closed || server == null || !lock.tryLock()) {
            return 0;
        }
        int work = 0;
        try {
            // a request becomes a CONNREQ the EQ must hold: with the EQ full, connections wait in the kernel's
            // backlog (their connect is slow, not lost) instead of overrunning it (a lost CONNREQ hangs the peer)
            if (reading.size() < eqRoom() && acceptReady.selectNow() > 0) {
                acceptReady.selectedKeys().clear();
                SocketChannel c;
                while (reading.size() < eqRoom() && (c = server.accept()) != null) {
                    c.configureBlocking(false);
                    reading.add(new ConnRequest(c));
                    // a request that arrives after the accept must wake a waiter sleeping on the fabric's selector
                    fabric.register(c, SelectionKey.OP_READ, this);
                    work++;
                }
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "accept failed on {0}: {1}", Sockaddr.straddr(name), e.getMessage());
        }
        try {
            for (int i = reading.size() - 1; i >= 0; i--) {
                ConnRequest r = reading.get(i);
                int st;
                try {
                    st = r.readRequest();
                } catch (IOException e) {
                    st = -1;
                }
                if (st == 0 && r.ageNanos() > REQUEST_TIMEOUT) {
                    st = -1;
                }
                if (st == 0 || (st > 0 && eqRoom() == 0)) {
                    continue;
                }
                reading.remove(i);
                work++;
                if (st < 0) {
                    LOG.log(System.Logger.Level.WARNING, "dropping connection request: {0}", ConnRequest.describe(st));
                    closeQuietly(r.ch);
                    continue;
                }
                quiet(r.ch);
                raiseConnreq(r);
            }
        } finally {
            lock.unlock();
        }
        return work;
    }

    /**
     * A whole request is read: nothing more is read from it until fi_accept, so its readiness must not keep the
     * selector from sleeping (the accepting endpoint registers it again, for itself).
     */
    private void quiet(SocketChannel ch) {
        fabric.register(ch, 0, this);
    }

    /** Events the bound EQ can still take, keeping a few for the events of accepted endpoints. */
    private int eqRoom() {
        return Math.max(0, eq.capacity() - Math.min(EQ_HEADROOM, eq.capacity() / 4) - eq.size());
    }

    private void raiseConnreq(ConnRequest r) {
        FabricInfo ci = info.copy();
        try {
            InetSocketAddress local = r.local();
            InetSocketAddress peer = r.peer();
            ci.srcAddr = Sockaddr.of(local);
            ci.destAddr = Sockaddr.of(peer);
            ci.addrFormat = Sockaddr.formatOf(local.getAddress());
        } catch (IOException e) {
            closeQuietly(r.ch);
            return;
        }
        ci.handle = r;
        eq.postConnReq(this, null, ci, r.cmData);
    }

    @Override
    public void reject(Object handle, byte[] data) {
        if (!(handle instanceof ConnRequest r) || r.consumed) {
            throw new FabricException(Errno.EINVAL, "not a pending connection request of this provider");
        }
        r.consumed = true;
        if (ConnectionEvent.isRecorded()) {
            try {
                ConnectionEvent.emitInet(TcpParams.PROV, ConnectionEvent.REFUSED, r.local(), r.peer(), "fi_reject");
            } catch (IOException e) {
                ConnectionEvent.emit(TcpParams.PROV, ConnectionEvent.REFUSED, null, null, "fi_reject");
            }
        }
        try {
            TcpCm.writeFully(r.ch, TcpCm.message(CmMessage.TYPE_NACK, data));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "reject could not reach the peer: {0}", e.getMessage());
        } finally {
            closeQuietly(r.ch);
        }
    }

    @Override
    public byte[] getName() {
        return Sockaddr.of(name);
    }

    @Override
    public void setName(byte[] addr) {
        lock.lock();
        try {
            if (server != null) {
                throw new FabricException(Errno.EINVAL, "cannot change the address of a listening endpoint");
            }
            name = Sockaddr.toInet(addr);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long cmDataSize() {
        return CmMessage.MAX_DATA_SIZE;
    }

    private static void closeQuietly(java.nio.channels.Channel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // already broken
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (server != null) {
                closeQuietly(server);
                if (serverKey != null) {
                    TcpFabric.flushCancelledKeys(serverKey.selector());
                }
            }
            if (acceptReady != null) {
                try {
                    acceptReady.close();
                } catch (IOException ignored) {
                    // nothing left to release
                }
            }
            for (ConnRequest r : reading) {
                closeQuietly(r.ch);
            }
            reading.clear();
            if (eq != null) {
                eq.progress.remove(this);
                eq.release();
            }
        } finally {
            lock.unlock();
        }
        fabric.childClosed(this);
    }

    @Override
    public String toString() {
        return "TcpPassiveEndpoint[" + Sockaddr.straddr(name) + ", pending=" + reading.size() + "]";
    }
}
