/**
 * jfabric's shm provider: RDM endpoints between processes of one user on one machine, over POSIX
 * shared memory, with cross-memory attach (process_vm_readv/writev) for large transfers.
 */
module io.jfabric.provider.shm {
    exports io.jfabric.provider.shm;
    exports io.jfabric.provider.shm.ffi;
}
