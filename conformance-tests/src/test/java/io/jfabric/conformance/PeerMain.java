package io.jfabric.conformance;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The second process of the cross-process tests. It finds the same {@link FabricCase} by id, prints its
 * address as "ADDR hex" on stdout and takes commands on stdin; every line it prints is a protocol line,
 * diagnostics go to stderr. Roles:
 * <ul>
 * <li>{@code server} (MSG): listens; rejects a CONNREQ whose data is "reject me" with "rejected by peer",
 *     accepts the next with "accepted by peer", then echoes every message back until SHUTDOWN or QUIT;</li>
 * <li>{@code peer} (RDM/DGRAM): reads "PEER hex", inserts it, says READY, then echoes until QUIT;</li>
 * <li>{@code victim}: connects like the above and then never posts a receive, so the parent's transfers
 *     stall until the parent kills it.</li>
 * </ul>
 * It exits on its own after {@link #LIFETIME_MS} whatever happens, so no test leaves it behind.
 */
public final class PeerMain {
    static final long LIFETIME_MS = 90_000;
    static final byte[] REJECT_ME = "reject me".getBytes(StandardCharsets.UTF_8);
    static final byte[] REJECTED = "rejected by peer".getBytes(StandardCharsets.UTF_8);
    static final byte[] ACCEPTED = "accepted by peer".getBytes(StandardCharsets.UTF_8);
    static final long MAX_ECHO = 16 << 20;

    private final FabricCase c;
    private final boolean victim;
    private final StateDump dump = new StateDump();
    private final Poller poller = new Poller();
    private final Side me;
    private final BlockingQueue<String> commands = new LinkedBlockingQueue<>();
    private final long deadline = System.nanoTime() + Slow.ms(LIFETIME_MS) * 1_000_000L;

    private PeerMain(FabricCase c, boolean victim) {
        this.c = c;
        this.victim = victim;
        this.me = new Side("peer", c, dump);
    }

    public static void main(String[] args) throws Exception {
        Thread killer = PeerIo.lifetimeGuard(Slow.ms(LIFETIME_MS) + 5_000, "peer");
        FabricCase c = FabricCases.byId(args[0]);
        if (args[1].startsWith("check:")) {
            int rc = IsolatedCheck.runInChild(c, args[1].substring("check:".length()));
            System.err.flush();
            killer.interrupt();
            Runtime.getRuntime().halt(rc);
        }
        PeerMain p = new PeerMain(c, args[1].equals("victim"));
        PeerIo.readCommands(p.commands, "peer");
        int rc;
        try {
            rc = c.isMsg() ? p.serveMsg() : p.servePeer();
        } catch (Throwable t) {
            t.printStackTrace();
            System.err.println(p.dump.dump("peer failed"));
            rc = 2;
        }
        System.out.flush();
        killer.interrupt();
        Runtime.getRuntime().halt(rc);
    }

    private int serveMsg() throws InterruptedException {
        FabricInfo info = c.freshInfo();
        PeerIo.say("ADDR " + HexFormat.of().formatHex(me.listen(info, poller)));
        EqEntry e = new EqEntry();
        EqErrEntry err = new EqErrEntry();
        while (true) {
            int rc = poller.awaitEvent(me.eq, e, err, remainingMs());
            if (rc != EqEvent.CONNREQ) {
                System.err.println("peer: waiting for CONNREQ got " + rc + " " + e + " " + err);
                return 4;
            }
            if (java.util.Arrays.equals(REJECT_ME, e.cmData)) {
                me.pep.reject(e.info.handle, REJECTED);
                PeerIo.say("REJECTED");
                continue;
            }
            me.info = e.info;
            me.domain = dump.track(me.fabric.openDomain(e.info));
            EndpointPair.openQueuesAndEndpoint(me, c, dump, new EndpointPair.Options(), e.info, poller);
            me.ep.accept(ACCEPTED);
            rc = poller.awaitEvent(me.eq, e, err, remainingMs());
            if (rc != EqEvent.CONNECTED) {
                System.err.println("peer: waiting for CONNECTED got " + rc + " " + e + " " + err);
                return 4;
            }
            PeerIo.say("CONNECTED");
            return victim ? stall() : echo();
        }
    }

    private int servePeer() throws InterruptedException {
        EndpointPair.openSide(me, c, dump, new EndpointPair.Options(), c.freshInfo(), poller);
        PeerIo.say("ADDR " + HexFormat.of().formatHex(me.ep.getName()));
        String cmd = commands.poll(remainingMs(), TimeUnit.MILLISECONDS);
        if (cmd == null || !cmd.startsWith("PEER ")) {
            System.err.println("peer: expected PEER, got " + cmd);
            return 4;
        }
        me.peer = me.av.insert(HexFormat.of().parseHex(cmd.substring(5)));
        PeerIo.say("READY");
        return victim ? stall() : echo();
    }

    /** Sends every received message back, until SHUTDOWN (MSG), QUIT or the lifetime ends. */
    private int echo() {
        try (Arena arena = Arena.ofShared()) {
            long max = Math.min(MAX_ECHO, FabricCase.unsigned(me.info.epAttr.maxMsgSize));
            MemorySegment rx = Mem.alloc(arena, max);
            MemorySegment tx = Mem.alloc(arena, max);
            var rxMr = me.desc(rx);
            var txMr = me.desc(tx);
            CqEntry ce = new CqEntry();
            CqErrEntry cerr = new CqErrEntry();
            EqEntry ee = new EqEntry();
            if (me.ep.recv(rx, rxMr, Fabrics.ADDR_UNSPEC, "echo-rx") != 0) {
                System.err.println("peer: the first receive was refused");
                return 5;
            }
            while (remainingMs() > 0) {
                if ("QUIT".equals(commands.poll())) {
                    return 0;
                }
                if (me.eq != null) {
                    int ev = me.eq.read(ee, 0);
                    if (ev == EqEvent.SHUTDOWN) {
                        PeerIo.say("SHUTDOWN");
                        return 0;
                    }
                }
                int rc = me.rxCq.read(ce);
                if (rc == -Errno.EAVAIL) {
                    me.rxCq.readError(cerr, 0);
                    if (me.eq != null && awaitShutdown(ee)) {
                        // the parent's fi_shutdown flushed the posted receive before the event was read
                        PeerIo.say("SHUTDOWN");
                        return 0;
                    }
                    System.err.println("peer: receive failed " + cerr);
                    return 6;
                }
                if (rc == 1) {
                    long n = ce.len;
                    MemorySegment.copy(rx, 0, tx, 0, n);
                    int s;
                    while ((s = me.ep.send(tx.asSlice(0, n), txMr, me.peer, "echo-tx")) == -Errno.EAGAIN) {
                        poller.drive();
                    }
                    if (s != 0) {
                        System.err.println("peer: echo send returned " + Errno.name(s));
                        return 7;
                    }
                    if (poller.awaitCq(me.txCq, ce, cerr, remainingMs()) != 1) {
                        System.err.println("peer: echo send did not complete: " + cerr);
                        return 7;
                    }
                    int r = me.ep.recv(rx, rxMr, Fabrics.ADDR_UNSPEC, "echo-rx");
                    if (r != 0) {
                        // the parent may shut the connection down as soon as it has the echo, before this
                        // receive is reposted: an endpoint that has seen the peer's shutdown refuses new posts
                        if (me.eq != null && awaitShutdown(ee)) {
                            PeerIo.say("SHUTDOWN");
                            return 0;
                        }
                        System.err.println("peer: reposting the receive returned " + Errno.name(r));
                        return 5;
                    }
                }
            }
        }
        System.err.println("peer: lifetime over while echoing");
        return 8;
    }

    private boolean awaitShutdown(EqEntry ee) {
        long until = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < until) {
            int ev = me.eq.read(ee, 0);
            if (ev == EqEvent.SHUTDOWN) {
                return true;
            }
            if (ev >= 0 || ev == -Errno.EAVAIL) {
                return false;
            }
            poller.drive();
        }
        return false;
    }

    /** Drives progress but never receives: the parent's sends back up until it kills this process. */
    private int stall() {
        while (remainingMs() > 0) {
            if ("QUIT".equals(commands.poll())) {
                return 0;
            }
            poller.drive();
            Thread.onSpinWait();
        }
        return 0;
    }

    private long remainingMs() {
        return Math.max(0, (deadline - System.nanoTime()) / 1_000_000L);
    }
}
