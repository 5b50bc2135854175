package io.jfabric.conformance.xmatrix;

import io.jfabric.AddressFormat;
import io.jfabric.EndpointType;
import io.jfabric.conformance.PeerIo;

import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One side of the cross-implementation matrix in its own JVM: {@code MatrixPeer <provider> msg|rdm listen|connect}.
 * It sets up a {@link MatrixNode}, then runs the cell steps its parent sends on stdin, one line each, answering
 * {@code OK} or {@code FAIL <reason>} on stdout; between commands it keeps reading its CQs (manual progress).
 * <pre>
 *  listen : says ADDR fmt hex; (MSG: accepts)          reads PEER fmt hex (RDM: inserts it)
 *  connect: reads PEER fmt hex; connects or inserts;    says ADDR fmt hex
 *  both   : say RMA addr key caps inject_size;          read RRMA addr key; say READY
 *  then   : STEP prep|init|verify|finish op size seed timeout_ms  ->  OK | FAIL reason;   QUIT
 * </pre>
 */
public final class MatrixPeer {
    static final long LIFETIME_MS = 600_000;
    static final long SETUP_MS = 30_000;

    private MatrixPeer() {
    }

    public static void main(String[] args) throws Exception {
        PeerIo.lifetimeGuard(LIFETIME_MS, "matrix peer");
        BlockingQueue<String> commands = new LinkedBlockingQueue<>();
        PeerIo.readCommands(commands, "matrix peer");
        EndpointType type = "rdm".equals(args[1]) ? EndpointType.RDM : EndpointType.MSG;
        boolean listen = "listen".equals(args[2]);
        try (MatrixNode node = new MatrixNode(args[0], type)) {
            try {
                setUp(node, listen, commands);
            } catch (RuntimeException e) {
                PeerIo.say("FAIL set-up: " + e);
                e.printStackTrace();
                return;
            }
            MatrixOps ops = new MatrixOps(node);
            while (true) {
                String cmd = commands.poll();
                if (cmd == null) {
                    ops.idle();
                    LockSupport.parkNanos(20_000);
                    continue;
                }
                if (cmd.equals("QUIT")) {
                    break;
                }
                PeerIo.say(step(ops, cmd));
            }
        }
        System.exit(0);
    }

    private static void setUp(MatrixNode node, boolean listen, BlockingQueue<String> commands)
            throws InterruptedException {
        HexFormat hex = HexFormat.of();
        if (listen) {
            byte[] name = node.listen();
            PeerIo.say("ADDR " + node.fi.addrFormat.value() + " " + hex.formatHex(name));
            if (node.type == EndpointType.MSG) {
                node.accept(SETUP_MS);
            }
            String[] p = expect(commands, "PEER");
            node.insertPeer(hex.parseHex(p[2]));
        } else {
            String[] p = expect(commands, "PEER");
            byte[] name = node.connect(AddressFormat.of(Integer.parseInt(p[1])), hex.parseHex(p[2]), SETUP_MS);
            PeerIo.say("ADDR " + node.fi.addrFormat.value() + " " + hex.formatHex(name));
        }
        PeerIo.say("RMA " + node.rmaAddress() + " " + node.mr.key() + " " + node.fi.caps + " "
                + node.fi.txAttr.injectSize + " " + node.fi.epAttr.maxMsgSize);
        String[] r = expect(commands, "RRMA");
        node.remoteAddr = Long.parseLong(r[1]);
        node.remoteKey = Long.parseLong(r[2]);
        PeerIo.say("READY");
    }

    private static String[] expect(BlockingQueue<String> commands, String word) throws InterruptedException {
        String line = commands.poll(SETUP_MS, TimeUnit.MILLISECONDS);
        if (line == null || !line.startsWith(word + " ")) {
            throw new IllegalStateException("expected " + word + ", got " + line);
        }
        return line.split(" ");
    }

    /** {@code STEP which op size seed timeout_ms}. */
    private static String step(MatrixOps ops, String cmd) {
        String[] w = cmd.split(" ");
        try {
            MatrixOp op = MatrixOp.valueOf(w[2]);
            long size = Long.parseLong(w[3]);
            long seed = Long.parseLong(w[4]);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(w[5]));
            switch (w[1]) {
                case "prep" -> ops.prep(op, size, seed, deadline);
                case "init" -> ops.init(op, size, seed, deadline);
                case "verify" -> ops.verify(op, size, seed, deadline);
                case "finish" -> ops.finish(op, size, seed, deadline);
                default -> throw new IllegalArgumentException("unknown step " + w[1]);
            }
            return "OK";
        } catch (RuntimeException e) {
            return "FAIL " + String.valueOf(e.getMessage()).replace('\n', ' ');
        }
    }
}
