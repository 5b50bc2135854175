package io.jfabric;

/** Mirrors {@code struct fid_cntr} (fi_cntr(3)). */
public interface Counter extends FabricObject {
    /** {@code fi_cntr_read}; drives progress with manual progress. */
    long read();

    /** {@code fi_cntr_readerr}. */
    long readError();

    void add(long value);

    void set(long value);

    void addError(long value);

    void setError(long value);

    /**
     * {@code fi_cntr_wait}: blocks until the count reaches {@code threshold}; returns 0, -ETIMEDOUT on
     * timeout, or -EAVAIL if the error count changed while waiting.
     */
    int await(long threshold, int timeoutMillis);
}
