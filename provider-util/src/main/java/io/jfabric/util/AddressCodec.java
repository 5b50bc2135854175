package io.jfabric.util;

import io.jfabric.Errno;
import io.jfabric.FabricException;

/**
 * What an address vector needs to know about a provider's address format: whether bytes are a valid
 * address ({@code fi_av_insert}'s per-address check, with a reason a user can act on), how to print
 * one ({@code fi_av_straddr}) and how to resolve node/service ({@code fi_av_insertsvc}).
 * {@link Sockaddr#CODEC} covers FI_SOCKADDR_IN/IN6; {@link StringAddressCodec} covers FI_ADDR_STR
 * addresses such as {@code fi_shm://...}.
 */
public interface AddressCodec {
    /** Null when {@code addr} is acceptable, otherwise why not ("port 0", "not an fi_shm:// name"). */
    String validate(byte[] addr);

    /** {@code fi_av_straddr}: "fi_sockaddr_in://127.0.0.1:1234". Must not throw for invalid input. */
    String straddr(byte[] addr);

    /** {@code fi_av_insertsvc}: the address of node:service; throws FabricException when it cannot. */
    default byte[] resolve(String node, String service) {
        throw new FabricException(Errno.ENOSYS, "this address format cannot be resolved from node/service");
    }
}
