package io.jfabric.provider.shm;

/**
 * A receive being filled through the pipelined bounce protocol (RTS/PULL/DATA), libfabric's SAR
 * protocol turned receiver-driven: the receiver asks for a window of chunks, the sender copies each
 * into one of its bounce slots, the receiver copies it out and asks for the next.
 */
final class PullState {
    final int index;
    int generation;
    boolean busy;
    io.jfabric.util.TagMatcher.Recv receive;
    Peer peer;
    long senderOp;
    long length;
    /** Bytes the receive takes (less than length when truncated). */
    long wanted;
    long requested;
    long received;
    int outstanding;
    boolean pullBlocked;
    long data;
    int wireFlags;
    long tag;
    long srcAddr;

    PullState(int index) {
        this.index = index;
    }

    long id() {
        return ((long) generation << 32) | index;
    }
}
