package io.jfabric;

/**
 * Any opened libfabric object (a {@code fid}). {@link #close()} is {@code fi_close}: closing an object
 * that still has open children or bound users throws FabricException(EBUSY).
 */
public interface FabricObject extends AutoCloseable {
    @Override
    void close();
}
