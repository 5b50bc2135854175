package io.jfabric.provider.rxm;

import io.jfabric.Fabrics;
import io.jfabric.util.Sockaddr;

/**
 * One remote rxm endpoint, named by its listening address: libfabric's {@code util_peer_addr}. Peers that
 * connect to us before the application inserts them in the AV get one too, with no fi_addr.
 */
public final class Peer {
    final int index;
    final byte[] addr;
    long fiAddr = Fabrics.ADDR_NOTAVAIL;

    Peer(int index, byte[] addr) {
        this.index = index;
        this.addr = addr;
    }

    /** The index that goes into conn ids (low 32 bits) and that the peer echoes in ctrl_hdr.conn_id. */
    public int index() {
        return index;
    }

    public byte[] addr() {
        return addr;
    }

    /** The application's fi_addr for this peer, or FI_ADDR_NOTAVAIL when it never inserted it. */
    public long fiAddr() {
        return fiAddr;
    }

    @Override
    public String toString() {
        return "peer#" + index + "(" + Sockaddr.straddr(addr) + (fiAddr == Fabrics.ADDR_NOTAVAIL ? "" : ", fi_addr "
                + fiAddr) + ")";
    }
}
