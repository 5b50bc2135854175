package io.jfabric;

/**
 * Mirrors {@code struct fid_av} (fi_av(3)): maps peer addresses to compact {@code fi_addr} values.
 * With FI_AV_TABLE, fi_addr values are insertion indexes 0, 1, 2 ... across calls.
 */
public interface AddressVector extends FabricObject {
    AvAttr attr();

    /** {@code fi_av_bind} to an EQ, for FI_EVENT inserts. */
    void bind(EventQueue eq);

    /**
     * {@code fi_av_insert}: inserts {@code addrs}; fills {@code fiAddrOut} (may be null for TABLE), with
     * FI_ADDR_NOTAVAIL for any that failed; returns how many succeeded. With AvAttr.EVENT on an async
     * AV, returns 0 and reports FI_AV_COMPLETE (plus one error entry per failure) on the bound EQ.
     * Flag FI_SYNC_ERR: {@code context} must be an {@code int[]} that receives each address's errno.
     */
    int insert(byte[][] addrs, long[] fiAddrOut, long flags, Object context);

    /** Convenience: inserts one address and returns its fi_addr, or throws FabricException. */
    default long insert(byte[] addr) {
        long[] out = new long[1];
        // no FI_SYNC_ERR: not every provider supports it, and one address needs no per-address detail
        int n = insert(new byte[][] {addr}, out, 0, null);
        if (n != 1 || out[0] == Fabrics.ADDR_NOTAVAIL) {
            throw new FabricException(Errno.EINVAL, "address vector refused address " + straddr(addr)
                    + "; check it is in the info's addr_format");
        }
        return out[0];
    }

    /** {@code fi_av_insertsvc}: inserts the address of node:service. */
    int insertSvc(String node, String service, long[] fiAddrOut, long flags, Object context);

    /** {@code fi_av_remove}. */
    int remove(long[] fiAddrs, long flags);

    /** {@code fi_av_lookup}: the address behind an fi_addr; throws FabricException(ENOENT) if none. */
    byte[] lookup(long fiAddr);

    /** {@code fi_av_straddr}: "fi_sockaddr_in://127.0.0.1:1234", "fi_shm://...". */
    String straddr(byte[] addr);
}
