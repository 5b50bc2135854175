package io.jfabric.netty;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A jfabric endpoint's address: the provider's name ({@code "shm"}, {@code "tcp;ofi_rxm"},
 * {@code "libfabric:tcp;ofi_rxm"}) and the endpoint's raw name (fi_getname), or, for a server that has not bound
 * yet, the node and service to bind to.
 *
 * <p>Its textual form, {@code jfabric://<provider>/<name in hex>}, is what a bound server prints and what a client
 * passes to {@link #parse(String)} to dial it, in this process or another one.
 */
public final class JfabricAddress extends SocketAddress {
    private static final long serialVersionUID = 1L;
    private static final String SCHEME = "jfabric://";

    private final String provider;
    private final byte[] name;
    private final String node;
    private final String service;

    private JfabricAddress(String provider, byte[] name, String node, String service) {
        this.provider = Objects.requireNonNull(provider, "provider");
        if (provider.isEmpty() || provider.indexOf('/') >= 0) {
            throw new IllegalArgumentException("provider name '" + provider + "' is empty or holds a '/'");
        }
        this.name = name;
        this.node = node;
        this.service = service;
    }

    /** The endpoint named {@code name} (fi_getname's bytes) of {@code provider}: what a client connects to. */
    public static JfabricAddress of(String provider, byte[] name) {
        return new JfabricAddress(provider, Objects.requireNonNull(name, "name").clone(), null, null);
    }

    /**
     * Where a server binds: {@code provider} picks the node and service itself (shm names a fresh region; the
     * socket providers bind 127.0.0.1 and a free port).
     */
    public static JfabricAddress any(String provider) {
        return new JfabricAddress(provider, null, null, null);
    }

    /** Where a server binds: fi_getinfo's node and service with FI_SOURCE, e.g. ("tcp;ofi_rxm", "10.0.0.5", "7471"). */
    public static JfabricAddress bind(String provider, String node, String service) {
        return new JfabricAddress(provider, null, node, service);
    }

    /** Reads {@code jfabric://<provider>/<hex name>}, as {@link #toString()} writes it. */
    public static JfabricAddress parse(String text) {
        if (!text.startsWith(SCHEME)) {
            throw new IllegalArgumentException("'" + text + "' is not a jfabric address (" + SCHEME
                    + "<provider>/<name in hex>)");
        }
        int slash = text.lastIndexOf('/');
        if (slash < SCHEME.length()) {
            throw new IllegalArgumentException("'" + text + "' has no '/' between provider and name");
        }
        String provider = text.substring(SCHEME.length(), slash);
        String hex = text.substring(slash + 1);
        if (hex.isEmpty()) {
            return any(provider);
        }
        try {
            return of(provider, HexFormat.of().parseHex(hex));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + text + "': the name after the last '/' is not hex", e);
        }
    }

    public String provider() {
        return provider;
    }

    /** The endpoint's name, or null for an address a server binds to. */
    public byte[] name() {
        return name == null ? null : name.clone();
    }

    /**
     * The host and port in the name of an endpoint whose provider names endpoints by IP socket address (tcp,
     * tcp;ofi_rxm, verbs, the bridge's tcp ones), e.g. the port a server bound to port 0 was given; null for other
     * names (shm's) and for an address a server binds to.
     */
    public InetSocketAddress asInetSocketAddress() {
        String host = name == null ? null : SockAddr.host(name);
        return host == null ? null : new InetSocketAddress(host, SockAddr.port(name));
    }

    byte[] nameNoCopy() {
        return name;
    }

    String node() {
        return node;
    }

    String service() {
        return service;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JfabricAddress a && provider.equals(a.provider) && Arrays.equals(name, a.name)
                && Objects.equals(node, a.node) && Objects.equals(service, a.service);
    }

    @Override
    public int hashCode() {
        return provider.hashCode() * 31 + Arrays.hashCode(name);
    }

    @Override
    public String toString() {
        if (name == null && (node != null || service != null)) {
            return SCHEME + provider + "/?node=" + node + "&service=" + service;
        }
        return SCHEME + provider + "/" + (name == null ? "" : HexFormat.of().formatHex(name));
    }
}
