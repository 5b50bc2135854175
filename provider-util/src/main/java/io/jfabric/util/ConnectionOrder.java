package io.jfabric.util;

import io.jfabric.MsgOrder;

/**
 * The msg_order of a provider whose operations to a peer share one ordered connection (tcp's socket, verbs' RC
 * queue pair), stated as libfabric 1.17's tcp and verbs state it: each of RAR, RAW and WAW with its RMA and
 * atomic forms (1.17's {@code OFI_ORDER_*_SET}), so that hints written for 1.17, which ask for
 * {@code FI_ORDER_RMA_RAW} where older ones asked for {@code FI_ORDER_RAW}, match here as they do there. A
 * write is not ordered after a read, nor a send after a read: the target answers a read when it reaches it, and
 * the initiator's later operations are not held back for that answer.
 */
public final class ConnectionOrder {
    /** RAR, RAW, RAS, WAW, WAS, SAW, SAS and the RMA and atomic forms of RAR, RAW and WAW. */
    public static final long MSG_ORDER = MsgOrder.RAR | MsgOrder.RMA_RAR | MsgOrder.ATOMIC_RAR
            | MsgOrder.RAW | MsgOrder.RMA_RAW | MsgOrder.ATOMIC_RAW
            | MsgOrder.WAW | MsgOrder.RMA_WAW | MsgOrder.ATOMIC_WAW
            | MsgOrder.RAS | MsgOrder.WAS | MsgOrder.SAW | MsgOrder.SAS;

    private ConnectionOrder() {
    }
}
