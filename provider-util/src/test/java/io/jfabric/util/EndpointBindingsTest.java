package io.jfabric.util;

import io.jfabric.AddressVector;
import io.jfabric.BindFlags;
import io.jfabric.CounterAttr;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.EqAttr;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.OpFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class EndpointBindingsTest {
    private static UtilCompletionQueue cq() {
        return new UtilCompletionQueue(CqAttr.of(CqFormat.TAGGED, 16), null, false, false);
    }

    @Test
    void oneCqPerDirectionAndObjectsCannotCloseWhileBound() {
        EndpointBindings b = new EndpointBindings("test endpoint");
        var tx = cq();
        var rx = cq();
        b.bindCq(tx, BindFlags.TRANSMIT);
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> b.bindCq(rx, BindFlags.TRANSMIT)).errno());
        assertEquals(Errno.EBADFLAGS, assertThrows(FabricException.class, () -> b.bindCq(rx, BindFlags.READ)).errno());
        b.bindCq(rx, BindFlags.RECV | BindFlags.SELECTIVE_COMPLETION);
        assertEquals(Errno.EBUSY, assertThrows(FabricException.class, tx::close).errno());
        b.releaseAll();
        tx.close();
        rx.close();
    }

    @Test
    void enableChecksSayWhatToBind() {
        EndpointBindings b = new EndpointBindings("rdm endpoint");
        var e = assertThrows(FabricException.class, () -> b.checkEnable(true, true, true, false));
        assertEquals(Errno.ENOCQ, e.errno());
        assertTrue(e.getMessage().contains("FI_TRANSMIT"));
        var q = cq();
        b.bindCq(q, BindFlags.TRANSMIT | BindFlags.RECV);
        assertEquals(Errno.ENOAV, assertThrows(FabricException.class, () -> b.checkEnable(true, true, true, false)).errno());
        // bindAv only keeps the reference: any AddressVector will do, so a proxy that answers nothing
        b.bindAv((AddressVector) java.lang.reflect.Proxy.newProxyInstance(AddressVector.class.getClassLoader(),
                new Class<?>[] {AddressVector.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                }));
        b.checkEnable(true, true, true, false);
        assertEquals(Errno.ENOEQ, assertThrows(FabricException.class, () -> b.checkEnable(true, true, false, true)).errno());
        b.bindEq(new UtilEventQueue(EqAttr.defaults(), null));
        b.checkEnable(true, true, true, true);
    }

    @Test
    void selectiveCompletionCountersAndErrors() {
        EndpointBindings b = new EndpointBindings("ep");
        var q = cq();
        b.bindCq(q, BindFlags.TRANSMIT | BindFlags.RECV | BindFlags.SELECTIVE_COMPLETION);
        var send = new UtilCounter(CounterAttr.defaults(), null);
        var write = new UtilCounter(CounterAttr.defaults(), null);
        var rw = new UtilCounter(CounterAttr.defaults(), null);
        b.bindCounter(send, BindFlags.TRANSMIT);
        b.bindCounter(write, BindFlags.WRITE);
        b.bindCounter(rw, BindFlags.REMOTE_WRITE);
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> b.bindCounter(new UtilCounter(CounterAttr.defaults(), null), BindFlags.WRITE | BindFlags.READ)).errno());
        assertNull(b.counter(BindFlags.READ), "a refused bind changes nothing");

        assertEquals(0, b.reportTx("quiet", 0, OpFlags.SEND | OpFlags.MSG, 8));
        assertEquals(0, b.reportTx("loud", OpFlags.COMPLETION, OpFlags.SEND | OpFlags.MSG, 8));
        assertEquals(0, b.reportTx("w", 0, OpFlags.RMA | OpFlags.WRITE, 8));
        assertEquals(0, b.reportTxError("bad", OpFlags.SEND, 8, 0, Errno.ECONNRESET, 0));
        assertEquals(0, b.reportRx("r", 0, OpFlags.RECV | OpFlags.MULTI_RECV, 0, 0, 0, 0, 3));
        b.reportRemote(OpFlags.RMA | OpFlags.REMOTE_WRITE, 64, 0, false);

        assertEquals(2, send.read());
        assertEquals(1, send.readError());
        assertEquals(1, write.read());
        assertEquals(1, rw.read());
        CqEntry[] e = CqEntry.array(4);
        assertEquals(1, q.read(e, 4), "selective: only the FI_COMPLETION op");
        assertEquals("loud", e[0].context);
        CqErrEntry err = new CqErrEntry();
        assertEquals(1, q.readError(err, 0), "errors are always reported");
        assertEquals("bad", err.context);
        assertEquals(1, q.readFrom(e, 4), "a multi-recv release is always reported");
        assertEquals("r", e[0].context);
        assertEquals(3, e[0].srcAddr);
    }

    @Test
    void errorDetailReportsFillTheReservedSlotAndCarryErrData() {
        EndpointBindings b = new EndpointBindings("ep");
        var q = new UtilCompletionQueue(CqAttr.of(CqFormat.TAGGED, 2), null, false, false);
        b.bindCq(q, BindFlags.TRANSMIT | BindFlags.RECV);
        var send = new UtilCounter(CounterAttr.defaults(), null);
        var recv = new UtilCounter(CounterAttr.defaults(), null);
        b.bindCounter(send, BindFlags.TRANSMIT);
        b.bindCounter(recv, BindFlags.RECV);
        assertTrue(q.tryReserve());
        assertTrue(q.tryReserve());
        assertFalse(q.tryReserve(), "both slots promised");
        byte[] txText = {'t'};
        byte[] rxText = {'r'};
        assertEquals(0, b.reportTxErrorDetail(true, "tx", OpFlags.SEND | OpFlags.MSG, 8, Errno.EACCES, 10, txText));
        assertEquals(0, b.reportRxErrorDetail(true, "rx", OpFlags.RECV | OpFlags.MSG, 4, Errno.ETRUNC, 1, rxText));
        assertFalse(q.isOverrun(), "the reports filled the promised slots instead of claiming new ones");
        assertEquals(1, send.readError());
        assertEquals(1, recv.readError());
        CqErrEntry err = new CqErrEntry();
        assertEquals(1, q.readError(err, 0));
        assertEquals("tx", err.context);
        assertEquals(Errno.EACCES, err.err);
        assertEquals(10, err.provErrno);
        assertSame(txText, err.errData);
        assertEquals(1, q.readError(err, 0));
        assertEquals("rx", err.context);
        assertEquals(4, err.len);
        assertEquals(1, err.provErrno);
        assertSame(rxText, err.errData);
    }
}
