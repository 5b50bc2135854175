package io.jfabric.util;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;

/**
 * fi_av(3)'s FI_EVENT for AVs whose inserts finish at once: an insert into an AV opened with the flag returns 0 and
 * reports on the EQ bound to the AV, one FI_AV_COMPLETE with the insert's context and how many addresses it inserted.
 */
public final class AvInsertEvents {
    private AvInsertEvents() {
    }

    /** Before an insert: an FI_EVENT AV reports on its EQ, so one must be bound (FI_ENOEQ otherwise). */
    public static void requireEq(AvAttr attr, EventQueue eq) {
        if ((attr.flags & AvAttr.EVENT) != 0 && eq == null) {
            throw new FabricException(Errno.ENOEQ, "this AV was opened with FI_EVENT; bind an EQ before inserting");
        }
    }

    /** After it: what the insert returns, {@code inserted}, or 0 with {@code inserted} reported on the EQ. */
    public static int report(AvAttr attr, EventQueue eq, AddressVector av, Object context, int inserted) {
        if ((attr.flags & AvAttr.EVENT) == 0) {
            return inserted;
        }
        eq.write(new EqEntry().set(EqEvent.AV_COMPLETE, av, context, inserted, null, null), 0);
        return 0;
    }
}
