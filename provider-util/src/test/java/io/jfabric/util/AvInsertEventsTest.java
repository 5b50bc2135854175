package io.jfabric.util;

import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** fi_av(3) FI_EVENT for AVs whose inserts finish at once (shm's and ofi_rxm's). */
class AvInsertEventsTest {

    @Test
    void anEventAvNeedsItsEqAndReportsEachInsertThere() {
        AvAttr event = AvAttr.of(AvType.TABLE);
        event.flags = AvAttr.EVENT;
        assertEquals(Errno.ENOEQ, assertThrows(FabricException.class, () -> AvInsertEvents.requireEq(event, null))
                .errno(), "an FI_EVENT AV with no EQ bound");
        try (UtilEventQueue eq = new UtilEventQueue(EqAttr.defaults(), ProgressHook.NONE)) {
            AvInsertEvents.requireEq(event, eq);
            assertEquals(0, AvInsertEvents.report(event, eq, null, "ctx", 3), "the insert itself returns 0");
            EqEntry e = new EqEntry();
            assertEquals(EqEvent.AV_COMPLETE, eq.read(e, 0));
            assertSame("ctx", e.context, "the insert's context");
            assertEquals(3, e.data, "how many addresses it inserted");
            assertEquals(-Errno.EAGAIN, eq.read(e, 0), "one event per insert");
        }
    }

    @Test
    void aPlainAvReturnsTheCountAndReportsNothing() {
        AvAttr plain = AvAttr.of(AvType.TABLE);
        AvInsertEvents.requireEq(plain, null);
        try (UtilEventQueue eq = new UtilEventQueue(EqAttr.defaults(), ProgressHook.NONE)) {
            assertEquals(2, AvInsertEvents.report(plain, eq, null, "ctx", 2));
            assertEquals(-Errno.EAGAIN, eq.read(new EqEntry(), 0));
        }
    }
}
