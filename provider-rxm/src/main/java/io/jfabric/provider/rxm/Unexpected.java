package io.jfabric.provider.rxm;

import io.jfabric.Endpoint;
import io.jfabric.util.TagMatcher;

/**
 * A message that arrived before a matching receive (libfabric's rxm_unexp_msg; the matcher queues it as
 * a {@link TagMatcher.Unexpected} whose payload is this): it keeps the receive
 * buffer(s) it arrived in until a receive, a claim or a discard takes it. SAR messages keep every
 * segment; rendezvous messages keep the request.
 */
final class Unexpected {
    static final int EAGER = 0;
    static final int SAR = 1;
    static final int RNDV = 2;

    int kind;
    RxBuf first;
    long offset;
    long firstLen;
    long size;
    boolean tagged;
    long tag;
    long data;
    boolean hasData;
    long src;
    long msgId;
    RxmConnection<Endpoint> conn;
    ConnData cd;
    int generation;
    /** SAR: later segments, oldest first, and whether the last one has arrived. */
    RxBuf segHead;
    RxBuf segTail;
    boolean complete;
    int buffers;
    /** The receive side of the endpoint it arrived on, which delivers it and holds its buffers. */
    RxmRecv owner;
    /** Its node in the matcher while it is queued (the node's payload points back here), else null. */
    TagMatcher.Unexpected node;
    Unexpected nextActive;

    void clear() {
        first = null;
        segHead = segTail = null;
        conn = null;
        cd = null;
        node = null;
        complete = false;
        buffers = 0;
        nextActive = null;
        owner = null;
    }
}
