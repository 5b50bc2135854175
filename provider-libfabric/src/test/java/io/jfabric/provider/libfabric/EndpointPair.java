package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfabric.AddressFormat;
import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.MrMode;

import java.util.ArrayList;
import java.util.List;

/**
 * Two RDM endpoints of one native provider in one process, each with its own CQ, sharing a domain
 * and an AV; {@link #await} drives both CQs (manual progress needs the peer polled too) and collects
 * completions and error completions per side. On a timeout it fails with both sides' state.
 */
final class EndpointPair implements AutoCloseable {
    final FabricInfo info;
    final Fabric fabric;
    final Domain domain;
    final AddressVector av;
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final Endpoint a;
    final Endpoint b;
    final long addrA;
    final long addrB;
    final List<CqEntry> doneA = new ArrayList<>();
    final List<CqEntry> doneB = new ArrayList<>();
    final List<CqErrEntry> errA = new ArrayList<>();
    final List<CqErrEntry> errB = new ArrayList<>();

    EndpointPair(String provName, long caps) {
        this(provName, caps, 0);
    }

    /** @param txBindFlags extra flags for the transmit CQ binding (SELECTIVE_COMPLETION) */
    EndpointPair(String provName, long caps, long txBindFlags) {
        this(provName, caps, txBindFlags, i -> { });
    }

    /** @param adjust changes the chosen info (a smaller tx_size, ...) before anything opens from it */
    EndpointPair(String provName, long caps, long txBindFlags, java.util.function.Consumer<FabricInfo> adjust) {
        Hints h = Hints.create().provider(provName).caps(caps).epType(EndpointType.RDM)
                .mrMode(MrMode.LOCAL | MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY);
        if (provName.contains("tcp") || provName.contains("udp")) {
            h.domain("lo").addrFormat(AddressFormat.SOCKADDR_IN);
        }
        List<FabricInfo> infos = new LibfabricProvider().getInfo(Fabrics.API_VERSION, null, null, 0, h.build());
        assertFalse(infos.isEmpty(), "native " + provName + " offers an RDM info with " + Caps.toString(caps));
        info = infos.get(0);
        adjust.accept(info);
        assertEquals(provName, info.providerName());
        fabric = new LibfabricProvider().openFabric(info);
        domain = fabric.openDomain(info);
        av = domain.openAv(AvAttr.of(AvType.UNSPEC));
        cqA = domain.openCq(CqAttr.of(CqFormat.TAGGED, 128));
        cqB = domain.openCq(CqAttr.of(CqFormat.TAGGED, 128));
        a = open(cqA, txBindFlags);
        b = open(cqB, txBindFlags);
        addrA = av.insert(a.getName());
        addrB = av.insert(b.getName());
    }

    private Endpoint open(CompletionQueue cq, long txBindFlags) {
        FabricInfo i = info.copy();
        if (txBindFlags != 0) {
            i.txAttr.opFlags &= ~io.jfabric.OpFlags.COMPLETION;
        }
        Endpoint ep = domain.openEndpoint(i);
        if (txBindFlags == 0) {
            ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
        } else {
            ep.bind(cq, BindFlags.TRANSMIT | txBindFlags);
            ep.bind(cq, BindFlags.RECV);
        }
        ep.bind(av);
        ep.enable();
        return ep;
    }

    boolean virtAddr() {
        return (info.domainAttr.mrMode & MrMode.VIRT_ADDR) != 0;
    }

    /** Polls both CQs until side A has {@code na} and side B {@code nb} completions (errors included). */
    void await(int na, int nb) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        CqEntry e = new CqEntry();
        while (doneA.size() + errA.size() < na || doneB.size() + errB.size() < nb) {
            poll(cqA, e, doneA, errA);
            poll(cqB, e, doneB, errB);
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for completions on " + info.providerName() + ": A has " + doneA + " " + errA
                        + ", B has " + doneB + " " + errB);
            }
        }
    }

    private static void poll(CompletionQueue cq, CqEntry e, List<CqEntry> done, List<CqErrEntry> errs) {
        int rc = cq.read(e);
        if (rc == 1) {
            CqEntry c = new CqEntry();
            c.copyFrom(e);
            done.add(c);
        } else if (rc == -Errno.EAVAIL) {
            CqErrEntry err = new CqErrEntry();
            assertEquals(1, cq.readError(err, 0));
            errs.add(err);
        } else if (rc != -Errno.EAGAIN) {
            fail("fi_cq_read returned " + Errno.name(rc));
        }
    }

    void clear() {
        doneA.clear();
        doneB.clear();
        errA.clear();
        errB.clear();
    }

    /** Posts with retries while the provider says EAGAIN (driving progress meanwhile). */
    void post(java.util.function.IntSupplier op, String what) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        int rc;
        CqEntry e = new CqEntry();
        while ((rc = op.getAsInt()) == -Errno.EAGAIN) {
            poll(cqA, e, doneA, errA);
            poll(cqB, e, doneB, errB);
            if (System.nanoTime() > deadline) {
                fail(what + " kept returning EAGAIN");
            }
        }
        final int result = rc;
        assertEquals(0, result, () -> what + " returned " + Errno.name(result));
    }

    @Override
    public void close() {
        a.close();
        b.close();
        cqA.close();
        cqB.close();
        av.close();
        domain.close();
        fabric.close();
    }
}
