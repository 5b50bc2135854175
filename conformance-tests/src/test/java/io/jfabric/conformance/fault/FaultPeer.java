package io.jfabric.conformance.fault;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.conformance.EndpointPair;
import io.jfabric.conformance.FabricCase;
import io.jfabric.conformance.FabricCases;
import io.jfabric.conformance.PeerIo;
import io.jfabric.conformance.Poller;
import io.jfabric.conformance.Side;
import io.jfabric.conformance.StateDump;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The second process of the fault tests: it sets up like {@code PeerMain} (MSG: listens and accepts one
 * connection; RDM: prints its address, reads "PEER hex") and then streams {@link Stream sequence-numbered}
 * messages. Arguments: case id, role, count, size, then options: {@code src=<IPv4>}, the source address to
 * bind (a peer in a network namespace), and {@code delay=<ms>}, a pause after each message a sink receives (a
 * slow consumer keeps the sender's window in flight), and {@code survive}: a sink reposts a receive that failed
 * (a connection lost under it) and waits for the sender to resend, as an application of a connectionless
 * endpoint would, taking a whole copy of one of the messages it already has as such a resend (a send that
 * completes with an error may still have been delivered: the acknowledgement was lost, not the message), and {@code lifetime=<ms>}, how long it lives (default {@link #LIFETIME_MS}). Roles:
 * <ul>
 * <li>{@code source}: after "GO", sends {@code count} messages of {@code size} bytes, a window at a time, and
 *     says "SENT count" when all completed successfully;</li>
 * <li>{@code sink}: receives {@code count} messages, checks each one's sequence and bytes, says
 *     "GOT count" (or "BAD ..." at the first wrong one);</li>
 * <li>{@code swarm} (RDM): opens {@code count} endpoints in one domain, says "ADDR" with the first one's
 *     address, reads "PEER hex" and "BASE n", then each endpoint sends one {@code size}-byte message numbered
 *     {@code n + its index} to the peer; says "SENT count" when all completed.</li>
 * </ul>
 * Then it waits for QUIT. Protocol lines go to stdout, diagnostics to stderr; it exits on its own after
 * {@link #LIFETIME_MS}.
 */
public final class FaultPeer {
    /**
     * How long a peer lives unless a {@code lifetime=<ms>} option says otherwise, on this machine: stretched by the
     * suite's time scale, since in the Soft-RoCE VM a freeze-then-continue stream outlived a fixed 60 s.
     */
    static final long LIFETIME_MS = io.jfabric.conformance.Slow.ms(60_000);
    static final int WINDOW = 8;
    /**
     * How far back a surviving sink takes a message as sent again: the sends a sender had in flight when its
     * connection died (HostCutOffTest keeps 64) may have arrived though they completed with an error.
     */
    static final int REDELIVERY_WINDOW = 64;

    private final FabricCase c;
    private final StateDump dump = new StateDump();
    private final Poller poller = new Poller();
    private final Side me;
    private final BlockingQueue<String> commands = new LinkedBlockingQueue<>();
    private final long deadline;
    private long delayMs;
    private boolean survive;

    private FaultPeer(FabricCase c, long lifetimeMs) {
        this.c = c;
        this.deadline = System.nanoTime() + lifetimeMs * 1_000_000L;
        this.me = new Side("fault-peer", c, dump);
    }

    public static void main(String[] args) throws Exception {
        long lifetimeMs = LIFETIME_MS;
        for (int i = 4; i < args.length; i++) {
            if (args[i].startsWith("lifetime=")) {
                lifetimeMs = Long.parseLong(args[i].substring(9));
            }
        }
        PeerIo.lifetimeGuard(lifetimeMs + 5_000, "fault peer");
        FabricCase c = FabricCases.byId(args[0]);
        String role = args[1];
        int count = Integer.parseInt(args[2]);
        long size = Long.parseLong(args[3]);
        FabricInfo info = c.freshInfo();
        FaultPeer p = new FaultPeer(c, lifetimeMs);
        long delayMs = 0;
        for (int i = 4; i < args.length; i++) {
            if (args[i].startsWith("src=")) {
                info = Ipv4.infoAt(c, args[i].substring(4));
            } else if (args[i].startsWith("delay=")) {
                delayMs = Long.parseLong(args[i].substring(6));
            } else if (args[i].equals("survive")) {
                p.survive = true;
            }
        }
        p.delayMs = delayMs;
        PeerIo.readCommands(p.commands, "fault peer");
        int rc;
        try {
            if (!role.equals("swarm")) {
                p.setUp(info);
            }
            rc = switch (role) {
                case "source" -> p.source(count, size);
                case "swarm" -> p.swarm(info, count, size);
                default -> p.sink(count, size);
            };
            if (rc == 0) {
                p.awaitQuit();
            }
        } catch (Throwable t) {
            t.printStackTrace();
            System.err.println(p.dump.dump("fault peer failed"));
            rc = 2;
        }
        System.out.flush();
        Runtime.getRuntime().halt(rc);
    }

    private void setUp(FabricInfo info) throws InterruptedException {
        if (!c.isMsg()) {
            EndpointPair.openSide(me, c, dump, new EndpointPair.Options(), info, poller);
            PeerIo.say("ADDR " + HexFormat.of().formatHex(me.ep.getName()));
            String cmd = commands.poll(remainingMs(), TimeUnit.MILLISECONDS);
            if (cmd == null || !cmd.startsWith("PEER ")) {
                throw new IllegalStateException("expected PEER, got " + cmd);
            }
            me.peer = me.av.insert(HexFormat.of().parseHex(cmd.substring(5)));
            PeerIo.say("READY");
            return;
        }
        PeerIo.say("ADDR " + HexFormat.of().formatHex(me.listen(info, poller)));
        EqEntry e = new EqEntry();
        EqErrEntry err = new EqErrEntry();
        int rc = poller.awaitEvent(me.eq, e, err, remainingMs());
        if (rc != EqEvent.CONNREQ) {
            throw new IllegalStateException("waiting for CONNREQ got " + rc + " " + e + " " + err);
        }
        me.info = e.info;
        me.domain = dump.track(me.fabric.openDomain(e.info));
        EndpointPair.openQueuesAndEndpoint(me, c, dump, new EndpointPair.Options(), e.info, poller);
        me.ep.accept(null);
        rc = poller.awaitEvent(me.eq, e, err, remainingMs());
        if (rc != EqEvent.CONNECTED) {
            throw new IllegalStateException("waiting for CONNECTED got " + rc + " " + e + " " + err);
        }
        PeerIo.say("CONNECTED");
    }

    private int source(int count, long size) throws InterruptedException {
        String go = commands.poll(remainingMs(), TimeUnit.MILLISECONDS);
        if (!"GO".equals(go)) {
            System.err.println("fault peer: expected GO, got " + go);
            return 4;
        }
        try (Arena arena = Arena.ofShared()) {
            Stream tx = new Stream(me, arena, WINDOW, size);
            CqEntry ok = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            int next = 0;
            int done = 0;
            while (done < count) {
                while (next < count && next - done < WINDOW) {
                    int rc = tx.send(next, me.peer);
                    if (rc == -Errno.EAGAIN) {
                        break;
                    }
                    if (rc != 0) {
                        System.err.println("fault peer: send " + next + " returned " + Errno.name(rc));
                        return 7;
                    }
                    next++;
                }
                int rc = poller.awaitCq(me.txCq, ok, err, 10);
                if (rc == 1) {
                    done++;
                } else if (rc == -Errno.EAVAIL) {
                    System.err.println("fault peer: send failed " + err);
                    return 7;
                } else if (remainingMs() == 0) {
                    return 8;
                }
            }
        }
        PeerIo.say("SENT " + count);
        return 0;
    }

    private int sink(int count, long size) throws InterruptedException {
        try (Arena arena = Arena.ofShared()) {
            Stream rx = new Stream(me, arena, WINDOW, size);
            for (int i = 0; i < WINDOW; i++) {
                if (rx.recv(i) != 0) {
                    return 5;
                }
            }
            CqEntry ok = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            int got = 0;
            while (got < count) {
                int rc = poller.awaitCq(me.rxCq, ok, err, 10);
                if (rc == -Errno.EAVAIL) {
                    System.err.println("fault peer: receive failed " + err);
                    if (!survive) {
                        return 6;
                    }
                    if (rx.recv((int) err.context) != 0) {
                        return 5;
                    }
                    continue;
                }
                if (rc == 1) {
                    int slot = (int) ok.context;
                    String bad = rx.check(slot, got, ok.len);
                    int dup = bad != null && survive ? rx.earlier(slot, got, ok.len) : -1;
                    if (dup >= 0) {
                        // delivered before the connection died, but the sender's completion was lost with it
                        // (a send that fails may still have arrived), so the sender sent it again
                        System.err.println("fault peer: message " + dup + " arrived again after a lost connection");
                        if (rx.recv(slot) != 0) {
                            return 5;
                        }
                        continue;
                    }
                    if (bad != null) {
                        PeerIo.say("BAD " + bad);
                        return 6;
                    }
                    got++;
                    if (delayMs > 0) {
                        Thread.sleep(delayMs);
                    }
                    if (rx.recv(slot) != 0) {
                        return 5;
                    }
                } else if (remainingMs() == 0) {
                    return 8;
                }
            }
        }
        PeerIo.say("GOT " + count);
        return 0;
    }

    private int swarm(FabricInfo info, int count, long size) throws InterruptedException {
        // one fabric and domain, then per endpoint its own CQ and AV (an rxm AV serves one endpoint)
        EndpointPair.openSide(me, c, dump, new EndpointPair.Options(), info, poller);
        Side[] eps = new Side[count];
        eps[0] = me;
        for (int i = 1; i < count; i++) {
            eps[i] = new Side("swarm-" + i, c, dump);
            eps[i].fabric = me.fabric;
            eps[i].domain = me.domain;
            EndpointPair.openQueuesAndEndpoint(eps[i], c, dump, new EndpointPair.Options(), info, poller);
        }
        PeerIo.say("ADDR " + HexFormat.of().formatHex(me.ep.getName()));
        String peerCmd = commands.poll(remainingMs(), TimeUnit.MILLISECONDS);
        String baseCmd = commands.poll(remainingMs(), TimeUnit.MILLISECONDS);
        if (peerCmd == null || !peerCmd.startsWith("PEER ") || baseCmd == null || !baseCmd.startsWith("BASE ")) {
            System.err.println("fault peer: expected PEER and BASE, got " + peerCmd + ", " + baseCmd);
            return 4;
        }
        byte[] target = HexFormat.of().parseHex(peerCmd.substring(5));
        int base = Integer.parseInt(baseCmd.substring(5).trim());
        try (Arena arena = Arena.ofShared()) {
            FaultPeer.Stream[] tx = new FaultPeer.Stream[count];
            for (int i = 0; i < count; i++) {
                eps[i].peer = eps[i].av.insert(target);
                tx[i] = new FaultPeer.Stream(eps[i], arena, 1, size);
            }
            CqEntry ok = new CqEntry();
            CqErrEntry err = new CqErrEntry();
            boolean[] posted = new boolean[count];
            int done = 0;
            int sent = 0;
            while (done < count) {
                int before = done + sent;
                for (int i = 0; i < count; i++) {
                    if (!posted[i]) {
                        int rc = tx[i].sendNumbered(base + i, eps[i].peer);
                        if (rc == 0) {
                            posted[i] = true;
                            sent++;
                        } else if (rc != -Errno.EAGAIN) {
                            System.err.println("fault peer: swarm send " + i + " returned " + Errno.name(rc));
                            return 7;
                        }
                    }
                    int rc = eps[i].txCq.read(ok);
                    if (rc == 1) {
                        done++;
                    } else if (rc == -Errno.EAVAIL) {
                        eps[i].txCq.readError(err, 0);
                        System.err.println("fault peer: swarm send failed " + err);
                        return 7;
                    }
                }
                if (done + sent == before) {
                    Thread.sleep(1); // several swarms share the cores with the receiver: don't spin
                }
                if (remainingMs() == 0) {
                    System.err.println("fault peer: swarm lifetime over, " + sent + " posted, " + done + " done");
                    return 8;
                }
            }
        }
        PeerIo.say("SENT " + count);
        return 0;
    }

    private void awaitQuit() throws InterruptedException {
        while (remainingMs() > 0) {
            String cmd = commands.poll(10, TimeUnit.MILLISECONDS);
            if ("QUIT".equals(cmd)) {
                return;
            }
            poller.drive();
        }
    }

    private long remainingMs() {
        return Math.max(0, (deadline - System.nanoTime()) / 1_000_000L);
    }

    /** A window of message buffers over one registration. */
    static final class Stream {
        private final Side side;
        private final MemorySegment buf;
        private final MemoryRegion mr;
        private final long size;

        Stream(Side side, Arena arena, int window, long size) {
            this.side = side;
            this.size = size;
            this.buf = io.jfabric.conformance.Mem.alloc(arena, size * window);
            this.mr = side.desc(buf);
        }

        MemorySegment slot(int i) {
            return buf.asSlice(size * i, size);
        }

        /** Posts message {@code seq} from slot {@code seq % window}, its context the sequence number. */
        int send(int seq, long dest) {
            MemorySegment s = slot(seq % (int) (buf.byteSize() / size));
            Sequenced.fill(s, seq);
            return side.ep.send(s, mr, dest, seq);
        }

        /** Posts message {@code id} from slot 0 with the id in its first bytes ({@link Sequenced#fillNumbered}). */
        int sendNumbered(int id, long dest) {
            Sequenced.fillNumbered(slot(0), id);
            return side.ep.send(slot(0), mr, dest, id);
        }

        /** Posts a receive into {@code slot}, its context the slot number. */
        int recv(int slot) {
            return side.ep.recv(slot(slot), mr, Fabrics.ADDR_UNSPEC, slot);
        }

        /** Null when slot {@code slot} holds message {@code seq} whole, else what is wrong. */
        String check(int slot, int seq, long len) {
            return Sequenced.check(slot(slot), seq, len, size);
        }

        /**
         * The sequence number of one of the {@link #REDELIVERY_WINDOW} messages before {@code next} if the slot
         * holds a whole copy of it, else -1.
         */
        int earlier(int slot, int next, long len) {
            for (int seq = next - 1; seq >= Math.max(0, next - REDELIVERY_WINDOW); seq--) {
                if (Sequenced.check(slot(slot), seq, len, size) == null) {
                    return seq;
                }
            }
            return -1;
        }
    }
}
