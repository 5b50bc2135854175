package io.jfabric.examples.rpc;

import io.jfabric.CqEntry;

/** The context of every operation the engine posts: its completion, or its error (err > 0), comes back here. */
interface OpContext {
    void complete(CqEntry entry, int err);
}
