package io.jfabric.spi;

/**
 * One tunable of a provider (libfabric's {@code fi_param}): read from the environment variable
 * {@link #envName()} ({@code FI_<PROV>_<NAME>}) or the system property {@link #propertyName()}.
 *
 * @param provider the provider name ("tcp", "ofi_rxm")
 * @param name     the parameter name, lower case ("eager_limit")
 * @param type     "int", "long", "size_t", "bool" or "string", as fi_info -e prints
 * @param defaultValue the default, as text
 * @param help     what it does
 */
public record ProviderParameter(String provider, String name, String type, String defaultValue, String help) {

    /**
     * The environment variable, FI_&lt;PROV&gt;_&lt;NAME&gt; upper case.
     *
     * @return e.g. {@code FI_OFI_RXM_EAGER_LIMIT}
     */
    public String envName() {
        return ("FI_" + provider + "_" + name).toUpperCase().replace(';', '_');
    }

    /**
     * The system property, jfabric.&lt;prov&gt;.&lt;name&gt;.
     *
     * @return e.g. {@code jfabric.ofi_rxm.eager_limit}
     */
    public String propertyName() {
        return "jfabric." + provider + "." + name;
    }

    /**
     * The configured value: the system property first, then the environment, then the default.
     *
     * @return the value as text
     */
    public String value() {
        String v = System.getProperty(propertyName());
        if (v == null) {
            v = System.getenv(envName());
        }
        return v == null ? defaultValue : v;
    }
}
