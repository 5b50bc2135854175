package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.util.AvInsertEvents;
import io.jfabric.util.UtilFabricObject;
import org.agrona.collections.Long2LongHashMap;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The shm address vector ({@code fi_av}, FI_AV_TABLE): fi_addr values are insertion indexes, each
 * naming a peer endpoint whose region is mapped at insert time, so inserting the name of a peer that
 * does not exist fails at once. It also answers the reverse question FI_SOURCE and directed receives
 * ask: which fi_addr sent this command (by sender id).
 *
 * <p>Addresses are FI_ADDR_STR strings {@code fi_shm://<region name>}, with or without a trailing
 * NUL. Difference from libfabric: FI_AV_MAP is served as a table (fi_addr values are indexes either
 * way). An FI_EVENT AV inserts at once all the same and reports each insert on its bound EQ ({@link AvInsertEvents}).
 */
final class ShmAv extends UtilFabricObject implements AddressVector {

    static final String SCHEME = "fi_shm://";

    private final ShmDomain domain;
    private final AvAttr attr;
    /** Where an FI_EVENT AV reports its inserts. */
    private EventQueue eq;
    private Peer[] peers = new Peer[16];
    private String[] names = new String[16];
    private int count;
    private final Long2LongHashMap addrBySender = new Long2LongHashMap(Fabrics.ADDR_NOTAVAIL);

    ShmAv(ShmDomain domain, AvAttr attr) {
        super("shm AV");
        this.domain = domain;
        this.attr = attr;
    }

    @Override
    public AvAttr attr() {
        return attr;
    }

    @Override
    public void bind(EventQueue eq) {
        checkOpen("bind an EQ to");
        this.eq = eq;
    }

    /** Parses {@code fi_shm://name} (trailing NULs allowed) into the region name. */
    static String regionName(byte[] addr) {
        if (addr == null) {
            throw new FabricException(Errno.EINVAL, "null shm address");
        }
        int len = addr.length;
        while (len > 0 && addr[len - 1] == 0) {
            len--;
        }
        String s = new String(addr, 0, len, StandardCharsets.US_ASCII);
        if (!s.startsWith(SCHEME)) {
            throw new FabricException(Errno.EINVAL, "'" + s + "' is not an shm address; expected "
                    + SCHEME + "<name> as returned by the peer endpoint's getName()");
        }
        return s.substring(SCHEME.length());
    }

    @Override
    public int insert(byte[][] addrs, long[] fiAddrOut, long flags, Object context) {
        checkOpen("insert into");
        AvInsertEvents.requireEq(attr, eq);
        int[] errs = (flags & Fabrics.SYNC_ERR) != 0 && context instanceof int[] a ? a : null;
        int ok = 0;
        domain.lockData();
        try {
            for (int i = 0; i < addrs.length; i++) {
                long fiAddr = Fabrics.ADDR_NOTAVAIL;
                int err = 0;
                try {
                    String name = regionName(addrs[i]);
                    Peer p = domain.peerByName(name);
                    fiAddr = add(name, p);
                    ok++;
                } catch (FabricException e) {
                    err = e.errno();
                } catch (ShmException e) {
                    err = e.errno();
                }
                if (fiAddrOut != null && i < fiAddrOut.length) {
                    fiAddrOut[i] = fiAddr;
                }
                if (errs != null && i < errs.length) {
                    errs[i] = err;
                }
            }
        } finally {
            domain.unlockData();
        }
        return AvInsertEvents.report(attr, eq, this, context, ok);
    }

    private long add(String name, Peer p) {
        if (count == peers.length) {
            peers = Arrays.copyOf(peers, count * 2);
            names = Arrays.copyOf(names, count * 2);
        }
        peers[count] = p;
        names[count] = name;
        if (p.senderId != -1 && addrBySender.get(p.senderId) == Fabrics.ADDR_NOTAVAIL) {
            addrBySender.put(p.senderId, count);
        }
        return count++;
    }

    @Override
    public int insertSvc(String node, String service, long[] fiAddrOut, long flags, Object context) {
        throw new FabricException(Errno.ENOSYS, "shm addresses are fi_shm:// names; use insert()");
    }

    @Override
    public int remove(long[] fiAddrs, long flags) {
        checkOpen("remove from");
        domain.lockData();
        try {
            for (long a : fiAddrs) {
                if (a < 0 || a >= count || peers[(int) a] == null) {
                    return -Errno.EINVAL; // all or nothing: one bad fi_addr removes none
                }
            }
            for (long a : fiAddrs) {
                Peer p = peers[(int) a];
                if (p == null) {
                    continue; // listed twice
                }
                if (addrBySender.get(p.senderId) == a) {
                    addrBySender.remove(p.senderId);
                }
                peers[(int) a] = null;
            }
            return 0;
        } finally {
            domain.unlockData();
        }
    }

    @Override
    public byte[] lookup(long fiAddr) {
        if (fiAddr < 0 || fiAddr >= count || peers[(int) fiAddr] == null) {
            throw new FabricException(Errno.ENOENT, "fi_addr " + fiAddr + " is not in this AV");
        }
        return (SCHEME + names[(int) fiAddr]).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public String straddr(byte[] addr) {
        if (addr == null) {
            return "(null)"; // fi_av_straddr must not throw: insert(null) reports through it
        }
        int len = addr.length;
        while (len > 0 && addr[len - 1] == 0) {
            len--;
        }
        return new String(addr, 0, len, StandardCharsets.US_ASCII);
    }

    /** Data path: the peer behind {@code fiAddr}, or null. */
    Peer peer(long fiAddr) {
        return fiAddr >= 0 && fiAddr < count ? peers[(int) fiAddr] : null;
    }

    /** How many fi_addrs were handed out (removed ones included): the bound of {@link #peer}'s argument. */
    int size() {
        return count;
    }

    /** Data path: the fi_addr of the endpoint that sent with {@code senderId}, or FI_ADDR_NOTAVAIL. */
    long addrOfSender(long senderId) {
        return addrBySender.get(senderId);
    }


    @Override
    protected void doClose() {
        domain.release();
    }
}
