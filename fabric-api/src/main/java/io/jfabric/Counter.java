package io.jfabric;

/** Mirrors {@code struct fid_cntr} (fi_cntr(3)). */
public interface Counter extends FabricObject {
    /**
     * {@code fi_cntr_read}; with manual progress it drives progress first.
     *
     * @return how many operations completed successfully
     */
    long read();

    /**
     * {@code fi_cntr_readerr}.
     *
     * @return how many operations completed in error
     */
    long readError();

    /**
     * {@code fi_cntr_add}.
     *
     * @param value added to the success count
     */
    void add(long value);

    /**
     * {@code fi_cntr_set}.
     *
     * @param value the new success count
     */
    void set(long value);

    /**
     * {@code fi_cntr_adderr}.
     *
     * @param value added to the error count
     */
    void addError(long value);

    /**
     * {@code fi_cntr_seterr}.
     *
     * @param value the new error count
     */
    void setError(long value);

    /**
     * {@code fi_cntr_wait}: blocks until the success count reaches {@code threshold}.
     *
     * @param threshold the count to wait for
     * @param timeoutMillis how long to wait in milliseconds; negative waits forever
     * @return 0, or -FI_ETIMEDOUT on timeout, -FI_EAVAIL if the error count changed while waiting
     */
    int await(long threshold, int timeoutMillis);

    /**
     * {@code fi_control(FI_GETWAIT)}: the native file descriptor a FI_WAIT_FD counter of the libfabric bridge
     * signals (see {@link CompletionQueue#waitFd()}).
     *
     * @return the descriptor (0 or more), or -FI_ENOSYS where there is none
     */
    default int waitFd() {
        return -Errno.ENOSYS;
    }
}
