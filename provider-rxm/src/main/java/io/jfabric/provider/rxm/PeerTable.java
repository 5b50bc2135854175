package io.jfabric.provider.rxm;

import io.jfabric.util.Sockaddr;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The peers an endpoint knows, by listening address (libfabric's rxm AV peer map, {@code util_get_peer}).
 * Indexes are dense and never reused, so a conn id the peer echoes back always names one peer.
 */
public final class PeerTable {
    private final List<Peer> byIndex = new ArrayList<>();
    private final Map<String, Peer> byAddr = new HashMap<>();

    /** The peer at {@code addr}, created if new. */
    public Peer getOrAdd(byte[] addr) {
        String k = Sockaddr.key(addr);
        Peer p = byAddr.get(k);
        if (p == null) {
            p = new Peer(byIndex.size(), addr.clone());
            byIndex.add(p);
            byAddr.put(k, p);
        }
        return p;
    }

    /** Records that the application calls this peer {@code fiAddr}. */
    public Peer bind(byte[] addr, long fiAddr) {
        Peer p = getOrAdd(addr);
        p.fiAddr = fiAddr;
        return p;
    }

    public void unbind(Peer p) {
        p.fiAddr = io.jfabric.Fabrics.ADDR_NOTAVAIL;
    }

    /** The peer with this index, or null. */
    public Peer get(int index) {
        return index >= 0 && index < byIndex.size() ? byIndex.get(index) : null;
    }

    public int size() {
        return byIndex.size();
    }
}
