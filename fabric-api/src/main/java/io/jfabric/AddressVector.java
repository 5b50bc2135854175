package io.jfabric;

/**
 * Mirrors {@code struct fid_av} (fi_av(3)): maps peer addresses to compact {@code fi_addr} values.
 * With FI_AV_TABLE, fi_addr values are insertion indexes 0, 1, 2 ... across calls.
 */
public interface AddressVector extends FabricObject {
    /**
     * The attributes the AV was opened with.
     *
     * @return its attributes
     */
    AvAttr attr();

    /**
     * {@code fi_av_bind} to an EQ, for inserts with {@link AvAttr#EVENT}.
     *
     * @param eq the queue that receives FI_AV_COMPLETE
     */
    void bind(EventQueue eq);

    /**
     * {@code fi_av_insert}. With AvAttr.EVENT on an asynchronous AV it returns 0 and reports FI_AV_COMPLETE
     * (plus one error entry per failure) on the bound EQ.
     *
     * @param addrs the addresses, in the info's addr_format
     * @param fiAddrOut receives each fi_addr, FI_ADDR_NOTAVAIL for any that failed; may be null for FI_AV_TABLE
     * @param flags 0, FI_SYNC_ERR or AvAttr.EVENT
     * @param context with FI_SYNC_ERR an {@code int[]} that receives each address's errno; otherwise returned
     *     in the EQ event
     * @return how many were inserted, or a negative errno (-FI_EINVAL for a bad argument)
     */
    int insert(byte[][] addrs, long[] fiAddrOut, long flags, Object context);

    /**
     * Inserts one address.
     *
     * @param addr the address, in the info's addr_format
     * @return its fi_addr
     * @throws FabricException EINVAL if the AV refuses it
     */
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

    /**
     * {@code fi_av_insertsvc}: inserts the address of node:service.
     *
     * @param node a host name or numeric address
     * @param service a port number or service name
     * @param fiAddrOut receives the fi_addr
     * @param flags as in {@link #insert(byte[][], long[], long, Object)}
     * @param context as in {@link #insert(byte[][], long[], long, Object)}
     * @return 1 when inserted, 0 or a negative errno when not
     */
    int insertSvc(String node, String service, long[] fiAddrOut, long flags, Object context);

    /**
     * {@code fi_av_remove}.
     *
     * @param fiAddrs the fi_addr values to remove
     * @param flags 0
     * @return 0, or a negative errno (-FI_EINVAL for an fi_addr not in the AV)
     */
    int remove(long[] fiAddrs, long flags);

    /**
     * {@code fi_av_lookup}.
     *
     * @param fiAddr an fi_addr of this AV
     * @return the address behind it
     * @throws FabricException ENOENT if the AV has no such fi_addr
     */
    byte[] lookup(long fiAddr);

    /**
     * {@code fi_av_straddr}.
     *
     * @param addr an address in the info's addr_format
     * @return its text form, e.g. {@code fi_sockaddr_in://127.0.0.1:4711}
     */
    String straddr(byte[] addr);
}
