package io.jfabric.spi;

/**
 * What discovery knows of one provider: found by ServiceLoader, usable or not, and why not.
 *
 * @param name    provider name
 * @param version FI_VERSION(major, minor)
 * @param utility whether it is a utility (layered) provider
 * @param unavailableReason null when usable
 */
public record ProviderStatus(String name, int version, boolean utility, String unavailableReason) {
    /**
     * Whether discovery offers this provider.
     *
     * @return true when {@code unavailableReason} is null
     */
    public boolean available() {
        return unavailableReason == null;
    }
}
