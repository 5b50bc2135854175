package io.jfabric.provider.rxm;

import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;

/**
 * The context rxm hands to every core operation: its completion (or error completion) is dispatched back
 * through it, so progress needs no lookup and no allocation.
 */
interface CoreCompletion {
    void complete(RxmShared s, CqEntry e);

    void fail(RxmShared s, CqErrEntry e);
}
