/**
 * jfabric's shm provider: RDM endpoints between processes of one user on one machine, over POSIX
 * shared memory, with cross-memory attach (process_vm_readv/writev) for large transfers.
 */
module io.jfabric.provider.shm {
    requires io.jfabric;
    requires io.jfabric.util;
    requires org.agrona;

    exports io.jfabric.provider.shm;
    exports io.jfabric.provider.shm.ffi;
    exports io.jfabric.provider.shm.wire;

    provides io.jfabric.spi.FabricProvider with io.jfabric.provider.shm.ShmProvider;
}
