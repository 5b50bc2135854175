package io.jfabric.provider.verbs;

import io.jfabric.Access;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;
import io.jfabric.PassiveEndpoint;
import io.jfabric.util.Sockaddr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * A real verbs session between two RDMA devices in one process (on Soft-RoCE: rxe0 → rxe1 over the
 * veth pair): discovery, connect with private data, send/recv, sendv, senddata, inject, RMA write,
 * writedata and read, a reject with data, heap registration refused, a bad rkey that puts the QP in
 * error and flushes the posted receives, and a shutdown. Every wait blocks on the completion channel
 * or the rdma_cm fd (no busy polling). Used by {@link VerbsVmCheck} (the VM) and VerbsDeviceTest.
 */
final class VerbsScenario {
    private static final int WAIT_MS = 20_000;
    private static final int SIZE = 64 * 1024;

    private final Consumer<String> log;
    private final List<String> failures = new ArrayList<>();
    private int passed;

    VerbsScenario(Consumer<String> log) {
        this.log = log;
    }

    List<String> failures() {
        return failures;
    }

    int passed() {
        return passed;
    }

    void record(boolean ok, String what) {
        check(ok, what);
    }

    private void check(boolean ok, String what) {
        if (ok) {
            passed++;
            log.accept("PASS " + what);
        } else {
            failures.add(what);
            log.accept("FAIL " + what);
        }
    }

    private static FabricInfo infoFor(List<FabricInfo> infos, String ip) throws Exception {
        InetAddress want = InetAddress.getByName(ip);
        for (FabricInfo i : infos) {
            if (Sockaddr.toInet(i.srcAddr).getAddress().equals(want)) {
                return i;
            }
        }
        throw new AssertionError("no verbs info with source address " + ip + " in " + infos);
    }

    private static int eqWait(EventQueue eq, EqEntry e, EqErrEntry err) {
        int rc = eq.sread(e, WAIT_MS, 0);
        if (rc == -Errno.EAVAIL) {
            eq.readError(err, 0);
        }
        return rc;
    }

    private static int cqWait(CompletionQueue cq, CqEntry[] entries, CqErrEntry err) {
        int rc = cq.sread(entries, 1, WAIT_MS);
        if (rc == -Errno.EAVAIL) {
            cq.readError(err, 0);
        }
        return rc;
    }

    private static MemorySegment pattern(Arena arena, int size, int seed) {
        MemorySegment s = arena.allocate(size, 4096);
        for (int i = 0; i < size; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
        return s;
    }

    private static boolean samePattern(MemorySegment s, long off, int size, int seed) {
        for (int i = 0; i < size; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, off + i) != (byte) (i * 31 + seed)) {
                return false;
            }
        }
        return true;
    }

    void run(String clientIp, String serverIp) throws Exception {
        FabricInfo hints = FabricInfo.hints();
        hints.epAttr.type = EndpointType.MSG;
        hints.fabricAttr.provName = "verbs";
        // what a verbs application accepts: local MRs with provider keys and virtual addresses, and
        // remote CQ data that consumes a posted receive
        hints.domainAttr.mrMode = io.jfabric.MrMode.LOCAL | io.jfabric.MrMode.VIRT_ADDR | io.jfabric.MrMode.ALLOCATED
                | io.jfabric.MrMode.PROV_KEY;
        hints.mode = io.jfabric.Mode.RX_CQ_DATA;
        hints.caps = io.jfabric.Caps.MSG | io.jfabric.Caps.RMA;
        List<FabricInfo> infos = new VerbsProvider().getInfo(Fabrics.API_VERSION, null, null, 0, hints);
        log.accept("infos: " + infos.stream().map(i -> i.domainAttr.name + " " + i.fabricAttr.name + " "
                + Sockaddr.straddr(i.srcAddr)).toList());
        FabricInfo cInfo = infoFor(infos, clientIp);
        FabricInfo sInfo = infoFor(infos, serverIp);
        check(!cInfo.domainAttr.name.equals(sInfo.domainAttr.name), "client and server are on different devices ("
                + cInfo.domainAttr.name + ", " + sInfo.domainAttr.name + ")");

        try (Arena arena = Arena.ofShared()) {
            Fabric fabric = new VerbsProvider().openFabric(cInfo);
            EventQueue eq = fabric.openEq(EqAttr.defaults());
            Domain cDom = fabric.openDomain(cInfo);
            Domain sDom = fabric.openDomain(sInfo);
            CompletionQueue cCq = cDom.openCq(CqAttr.of(CqFormat.DATA, 256));
            CompletionQueue sCq = sDom.openCq(CqAttr.of(CqFormat.DATA, 256));
            EqEntry ev = new EqEntry();
            EqErrEntry evErr = new EqErrEntry();
            CqEntry[] ce = CqEntry.array(4);
            CqErrEntry cerr = new CqErrEntry();

            // heap memory is never registered
            try {
                cDom.registerMemory(MemorySegment.ofArray(new byte[64]), Access.SEND, 0);
                check(false, "heap segment registration refused");
            } catch (FabricException e) {
                check(e.errno() == Errno.EINVAL, "heap segment registration refused with EINVAL: " + e.getMessage());
            }

            // local-only registrations go through the MR cache: a second one inside the first is a hit
            MemorySegment twice = arena.allocate(8192, 4096);
            MemoryRegion m1 = cDom.registerMemory(twice, Access.SEND, 0);
            MemoryRegion m2 = cDom.registerMemory(twice.asSlice(100, 200), Access.SEND, 0);
            check(((VerbsMemoryRegion) m1).lkey() == ((VerbsMemoryRegion) m2).lkey(),
                    "MR cache: a buffer inside a cached registration reuses it (lkey 0x"
                            + Integer.toHexString(((VerbsMemoryRegion) m1).lkey()) + ")");
            m2.close();
            m1.close();

            PassiveEndpoint pep = fabric.openPassiveEndpoint(sInfo);
            pep.bind(eq);
            pep.listen();
            byte[] serverAddr = pep.getName();
            check(Sockaddr.port(serverAddr) != 0, "listening on " + Sockaddr.straddr(serverAddr));

            // --- a reject carries its data back ---
            Endpoint rejected = cDom.openEndpoint(cInfo, "rejected-ep");
            rejected.bind(cCq, BindFlags.TRANSMIT | BindFlags.RECV);
            rejected.bind(eq);
            rejected.enable();
            rejected.connect(serverAddr, "please".getBytes(StandardCharsets.UTF_8));
            int rc = eqWait(eq, ev, evErr);
            check(rc == EqEvent.CONNREQ && "please".equals(str(ev.cmData)), "CONNREQ with private data 'please' ("
                    + rc + ", " + str(ev.cmData) + ")");
            if (rc == EqEvent.CONNREQ) {
                pep.reject(ev.info.handle, "no-thanks".getBytes(StandardCharsets.UTF_8));
                rc = eqWait(eq, ev, evErr);
                check(rc == -Errno.EAVAIL && evErr.err == Errno.ECONNREFUSED && evErr.fid == rejected
                        && "no-thanks".equals(str(evErr.errData)), "connect rejected: ECONNREFUSED with data "
                        + "'no-thanks' (" + rc + ", " + evErr + ", " + str(evErr.errData) + ")");
            }
            rejected.close();

            // --- connect with 55 bytes of private data each way ---
            byte[] cm55 = new byte[55];
            Arrays.fill(cm55, (byte) 'c');
            Endpoint client = cDom.openEndpoint(cInfo, "client-ep");
            client.bind(cCq, BindFlags.TRANSMIT | BindFlags.RECV);
            CompletionQueue secondCq = cDom.openCq(new CqAttr());
            try {
                client.bind(secondCq, BindFlags.TRANSMIT);
                check(false, "a second transmit CQ is refused");
            } catch (FabricException e) {
                check(e.errno() == Errno.EINVAL, "a second transmit CQ is refused with EINVAL: " + e.getMessage());
            }
            secondCq.close();
            client.bind(eq);
            client.enable();
            MemorySegment cBuf = arena.allocate(SIZE, 4096);
            MemoryRegion cMr = cDom.registerMemory(cBuf, Access.SEND | Access.RECV | Access.READ | Access.WRITE, 0);
            check(client.recv(cBuf.asSlice(0, 4096), cMr, 0, "c-recv-0") == 0, "client posts a receive before connect");
            client.connect(serverAddr, cm55);
            rc = eqWait(eq, ev, evErr);
            check(rc == EqEvent.CONNREQ && ev.cmData != null && Arrays.equals(ev.cmData, cm55),
                    "CONNREQ carries 55 bytes of private data (" + rc + ", " + (ev.cmData == null ? 0 : ev.cmData.length) + ")");
            FabricInfo req = ev.info;
            check(sInfo.domainAttr.name.equals(req.domainAttr.name), "CONNREQ names the server's device " + req.domainAttr.name);
            Endpoint server = sDom.openEndpoint(req, "server-ep");
            server.bind(sCq, BindFlags.TRANSMIT | BindFlags.RECV);
            server.bind(eq);
            server.enable();
            MemorySegment sBuf = arena.allocate(SIZE, 4096);
            MemoryRegion sMr = sDom.registerMemory(sBuf, Access.ALL, 0);
            for (int i = 0; i < 4; i++) {
                check(server.recv(sBuf.asSlice(i * 4096L, 4096), sMr, 0, "s-recv-" + i) == 0, "server posts receive " + i);
            }
            server.accept("welcome".getBytes(StandardCharsets.UTF_8));
            boolean clientUp = false;
            boolean serverUp = false;
            String cmDataSeen = null;
            for (int n = 0; n < 2; n++) {
                rc = eqWait(eq, ev, evErr);
                if (rc == EqEvent.CONNECTED && ev.fid == client) {
                    clientUp = true;
                    cmDataSeen = str(ev.cmData);
                } else if (rc == EqEvent.CONNECTED && ev.fid == server) {
                    serverUp = true;
                } else {
                    log.accept("unexpected event " + rc + " " + ev + " " + evErr);
                }
            }
            check(clientUp && serverUp, "CONNECTED on both sides");
            check("welcome".equals(cmDataSeen), "client's CONNECTED carries the accept data 'welcome' (" + cmDataSeen + ")");
            check(Arrays.equals(client.getPeer(), serverAddr), "client's peer is " + Sockaddr.straddr(client.getPeer()));

            // --- send/recv with verification ---
            MemorySegment msg = cBuf.asSlice(8192, 4096);
            MemorySegment.copy(pattern(arena, 4096, 7), 0, msg, 0, 4096);
            check(client.send(msg, cMr, 0, "c-send-1") == 0, "client posts a 4 KiB send");
            rc = cqWait(cCq, ce, cerr);
            check(rc == 1 && "c-send-1".equals(ce[0].context) && (ce[0].flags & OpFlags.SEND) != 0 && ce[0].len == 0,
                    "send completion with its context and len 0, as fi_cq(3) (" + rc + ", " + ce[0] + ")");
            rc = cqWait(sCq, ce, cerr);
            check(rc == 1 && "s-recv-0".equals(ce[0].context) && ce[0].len == 4096 && (ce[0].flags & OpFlags.RECV) != 0
                    && samePattern(sBuf, 0, 4096, 7), "server receives 4096 verified bytes (" + rc + ", " + ce[0] + ")");

            // --- sendv (two iovs) + senddata (immediate data) ---
            MemorySegment a = cBuf.asSlice(16384, 100);
            MemorySegment b = cBuf.asSlice(20480, 200);
            MemorySegment.copy(pattern(arena, 100, 1), 0, a, 0, 100);
            MemorySegment.copy(pattern(arena, 200, 2), 0, b, 0, 200);
            check(client.sendv(new MemorySegment[] {a, b}, new MemoryRegion[] {cMr, cMr}, 2, 0, "c-sendv") == 0,
                    "client posts sendv of 2 iovs");
            check(client.senddata(msg.asSlice(0, 16), cMr, 0xC0FFEEL, 0, "c-senddata") == 0, "client posts senddata");
            rc = cqWait(sCq, ce, cerr);
            check(rc == 1 && ce[0].len == 300 && samePattern(sBuf, 4096, 100, 1) && samePattern(sBuf, 4196, 200, 2),
                    "server receives the gathered 300 bytes in order (" + ce[0] + ")");
            rc = cqWait(sCq, ce, cerr);
            check(rc == 1 && (ce[0].flags & OpFlags.REMOTE_CQ_DATA) != 0 && ce[0].data == 0xC0FFEEL && ce[0].len == 16,
                    "senddata arrives with immediate data 0xC0FFEE (" + ce[0] + ")");
            drain(cCq, ce, cerr, 2);

            // --- inject: no completion, buffer reusable at once ---
            MemorySegment small = arena.allocate(32);
            small.setString(0, "injected!");
            check(client.inject(small.asSlice(0, 10), 0) == 0, "client injects 10 bytes");
            small.fill((byte) 0);
            check(server.recv(sBuf.asSlice(0, 4096), sMr, 0, "s-recv-4") == 0, "server reposts a receive");
            rc = cqWait(sCq, ce, cerr);
            check(rc == 1 && ce[0].len == 10 && "injected!".equals(sBuf.asSlice(12288, 10).getString(0)),
                    "injected message arrives intact after the sender reused its buffer (" + ce[0] + ")");

            // --- RMA write, writedata and read (FI_MR_VIRT_ADDR: remote address is the virtual address) ---
            MemorySegment target = sBuf.asSlice(32768, 8192);
            target.fill((byte) 0);
            MemorySegment src = cBuf.asSlice(32768, 8192);
            MemorySegment.copy(pattern(arena, 8192, 42), 0, src, 0, 8192);
            check(client.write(src, cMr, 0, target.address(), sMr.key(), "c-write") == 0, "client posts an 8 KiB RMA write");
            rc = cqWait(cCq, ce, cerr);
            check(rc == 1 && "c-write".equals(ce[0].context) && (ce[0].flags & OpFlags.WRITE) != 0 && ce[0].len == 0,
                    "RMA write completes with len 0 (" + rc + ", " + ce[0] + ")");
            check(samePattern(target, 0, 8192, 42), "RMA write landed in the server's memory");
            check(client.writedata(src.asSlice(0, 512), cMr, 77, 0, target.address() + 8192 - 512, sMr.key(),
                    "c-writedata") == 0, "client posts writedata");
            rc = cqWait(sCq, ce, cerr);
            check(rc == 1 && (ce[0].flags & OpFlags.REMOTE_CQ_DATA) != 0 && ce[0].data == 77,
                    "writedata raises a remote completion with data 77 (" + ce[0] + ")");
            drain(cCq, ce, cerr, 1);
            MemorySegment back = cBuf.asSlice(49152, 8192);
            back.fill((byte) 0);
            check(client.read(back, cMr, 0, target.address(), sMr.key(), "c-read") == 0, "client posts an 8 KiB RMA read");
            rc = cqWait(cCq, ce, cerr);
            check(rc == 1 && "c-read".equals(ce[0].context) && (ce[0].flags & OpFlags.READ) != 0 && ce[0].len == 0
                    && samePattern(back, 0, 8192 - 512, 42), "RMA read brings the data back (" + ce[0] + ")");

            // --- bad input is refused on the data path and loses nothing ---
            check(client.inject(cBuf.asSlice(0, 4096), 0) == -Errno.EMSGSIZE, "inject beyond inject_size is -EMSGSIZE");
            int iovLimit = (int) cInfo.txAttr.iovLimit;
            MemorySegment[] tooMany = new MemorySegment[iovLimit + 1];
            MemoryRegion[] tooManyMr = new MemoryRegion[iovLimit + 1];
            Arrays.fill(tooMany, msg.asSlice(0, 8));
            Arrays.fill(tooManyMr, cMr);
            check(client.sendv(tooMany, tooManyMr, iovLimit + 1, 0, "too-many") == -Errno.EINVAL,
                    "sendv of iov_limit + 1 (" + (iovLimit + 1) + ") buffers is -EINVAL");
            check(client.send(MemorySegment.ofArray(new byte[8]), cMr, 0, "heap") == -Errno.EINVAL,
                    "a send from a heap segment is -EINVAL");
            check(client.send(arena.allocate(64), cMr, 0, "outside") == -Errno.EINVAL,
                    "a send from memory outside its MR is -EINVAL");

            // --- selective completion and recvv on a second connection ---
            selectiveCompletion(arena, pep, serverAddr, eq, cInfo, cDom, cCq, sDom, sCq);

            // --- a bad rkey: error completion, QP in error, posted receives flushed ---
            check(client.recv(cBuf.asSlice(4096, 4096), cMr, 0, "c-recv-1") == 0, "client posts a second receive");
            check(client.write(src.asSlice(0, 64), cMr, 0, target.address(), (sMr.key() ^ 0x5a5a00L) & 0xffffffffL,
                    "c-badkey") == 0, "client posts an RMA write with a wrong rkey");
            rc = cqWait(cCq, ce, cerr);
            check(rc == -Errno.EAVAIL && "c-badkey".equals(cerr.context) && cerr.err == Errno.EACCES && cerr.provErrno != 0,
                    "bad rkey gives an EACCES error completion (" + rc + ", " + cerr + ", "
                            + (cerr.errData == null ? "" : str(cerr.errData)) + ")");
            int flushed = 0;
            for (int n = 0; n < 2; n++) {
                rc = cqWait(cCq, ce, cerr);
                if (rc == -Errno.EAVAIL && cerr.err == Errno.ECANCELED && cerr.provErrno != 0) {
                    flushed++;
                }
            }
            check(flushed == 2, "both posted client receives are flushed with ECANCELED and a prov_errno (" + flushed + ")");

            // --- shutdown: the server learns of it, and its posted receives are flushed ---
            for (int i = 0; i < 3; i++) {
                check(server.recv(sBuf.asSlice(i * 4096L, 4096), sMr, 0, "s-unused-" + i) == 0,
                        "server posts unused receive " + i);
            }
            client.shutdown(0);
            rc = eqWait(eq, ev, evErr);
            check(rc == EqEvent.SHUTDOWN && ev.fid == server, "server gets FI_SHUTDOWN (" + rc + ", " + ev + ")");
            int sFlushed = 0;
            for (int i = 0; i < 3 && cqWait(sCq, ce, cerr) == -Errno.EAVAIL; i++) {
                if (String.valueOf(cerr.context).startsWith("s-unused-") && cerr.err == Errno.ECANCELED) {
                    sFlushed++;
                }
            }
            check(sFlushed == 3, "after FI_SHUTDOWN the server's 3 posted receives are flushed with ECANCELED, "
                    + "before close (" + sFlushed + ")");
            server.close();
            client.close();
            check(sCq.read(ce, 1) == -Errno.EAGAIN && cCq.read(ce, 1) == -Errno.EAGAIN,
                    "closing the endpoints leaves no stray completions");
            cMr.close();
            sMr.close();
            pep.close();
            cCq.close();
            sCq.close();
            cDom.close();
            sDom.close();
            eq.close();
            fabric.close();
            check(true, "everything closed");
        }
    }

    private void selectiveCompletion(Arena arena, PassiveEndpoint pep, byte[] serverAddr, EventQueue eq,
                                     FabricInfo cInfo, Domain cDom, CompletionQueue cCq, Domain sDom,
                                     CompletionQueue sCq) {
        EqEntry ev = new EqEntry();
        EqErrEntry evErr = new EqErrEntry();
        CqEntry[] ce = CqEntry.array(4);
        CqErrEntry cerr = new CqErrEntry();
        Endpoint c = cDom.openEndpoint(cInfo, "sel-client");
        c.bind(cCq, BindFlags.TRANSMIT | BindFlags.RECV | BindFlags.SELECTIVE_COMPLETION);
        c.bind(eq);
        c.connect(serverAddr, null);
        int rc = eqWait(eq, ev, evErr);
        if (rc != EqEvent.CONNREQ) {
            check(false, "second CONNREQ (" + rc + ", " + evErr + ")");
            c.close();
            return;
        }
        Endpoint s = sDom.openEndpoint(ev.info, "sel-server");
        s.bind(sCq, BindFlags.TRANSMIT | BindFlags.RECV);
        s.bind(eq);
        s.enable();
        MemorySegment sb = arena.allocate(8192, 4096);
        MemoryRegion smr = sDom.registerMemory(sb, io.jfabric.Access.RECV, 0);
        MemorySegment cb = arena.allocate(8192, 4096);
        MemoryRegion cmr = cDom.registerMemory(cb, io.jfabric.Access.SEND, 0);
        for (int i = 0; i < 3; i++) {
            s.recv(sb.asSlice(i * 1024L, 1024), smr, 0, "sel-recv-" + i);
        }
        MemorySegment[] two = {sb.asSlice(4096, 100), sb.asSlice(6144, 100)};
        check(s.recvv(two, new MemoryRegion[] {smr, smr}, 2, 0, "sel-recvv") == 0, "server posts recvv of 2 iovs");
        s.accept(null);
        int up = 0;
        for (int i = 0; i < 2; i++) {
            if (eqWait(eq, ev, evErr) == EqEvent.CONNECTED) {
                up++;
            }
        }
        check(up == 2, "second connection CONNECTED on both sides");
        MemorySegment.copy(pattern(arena, 150, 9), 0, cb, 4096, 150);
        int posted = 0;
        for (int i = 0; i < 3; i++) {
            posted += c.send(cb.asSlice(i * 1024L, 200), cmr, 0, "sel-nocomp-" + i) == 0 ? 1 : 0;
        }
        io.jfabric.Msg m = new io.jfabric.Msg().set(cb.asSlice(4096, 150), cmr, 0, "sel-comp");
        posted += c.sendmsg(m, OpFlags.COMPLETION) == 0 ? 1 : 0;
        check(posted == 4, "3 sends without FI_COMPLETION and one sendmsg with it posted");
        int got = 0;
        for (int i = 0; i < 4; i++) {
            if (cqWait(sCq, ce, cerr) == 1) {
                got++;
            }
        }
        check(got == 4 && "sel-recvv".equals(ce[0].context) && ce[0].len == 150 && samePattern(sb, 4096, 100, 9)
                && samePattern2(sb, 6144, 50, 9, 100), "server receives all 4; the last scatters 150 bytes over "
                + "100 + 50 (" + ce[0] + ")");
        rc = cqWait(cCq, ce, cerr);
        check(rc == 1 && "sel-comp".equals(ce[0].context), "only the FI_COMPLETION send completes at the sender ("
                + ce[0] + ")");
        check(cCq.read(ce, 4) == -Errno.EAGAIN, "no completion for the sends without FI_COMPLETION");
        s.shutdown(0);
        rc = eqWait(eq, ev, evErr);
        check(rc == EqEvent.SHUTDOWN && ev.fid == c, "client gets FI_SHUTDOWN when the server shuts down (" + rc + ")");
        c.close();
        s.close();
        cmr.close();
        smr.close();
    }

    private static boolean samePattern2(MemorySegment s, long off, int size, int seed, int start) {
        for (int i = 0; i < size; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, off + i) != (byte) ((start + i) * 31 + seed)) {
                return false;
            }
        }
        return true;
    }

    private static void drain(CompletionQueue cq, CqEntry[] ce, CqErrEntry err, int n) {
        for (int i = 0; i < n; i++) {
            cqWait(cq, ce, err);
        }
    }

    private static String str(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
