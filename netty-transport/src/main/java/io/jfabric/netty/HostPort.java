package io.jfabric.netty;

import io.jfabric.AddressFormat;
import io.jfabric.EndpointType;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * A host and port ({@link InetSocketAddress}, what {@code Bootstrap.connect(host, port)}, a gRPC name resolver and
 * netty-testsuite hand a channel) as a jfabric address, over the provider {@link JfabricChannelOption#PROVIDER}
 * names: what a libfabric user gets from fi_getinfo's node and service. A provider whose addresses are not IP socket
 * addresses (shm names regions) refuses it.
 */
final class HostPort {
    private HostPort() {
    }

    /**
     * Where a server (or a client's endpoint) binds: {@code at} itself, or the host and port on {@code provider}
     * (port 0: one it picks).
     */
    static JfabricAddress bindAddress(SocketAddress at, String provider) {
        if (at instanceof JfabricAddress a) {
            return a;
        }
        InetSocketAddress inet = inet(at, provider, "binds to");
        String service = inet.getPort() == 0 ? null : Integer.toString(inet.getPort());
        try {
            resolve(provider, inet, service, Fabrics.SOURCE);
        } catch (FabricException e) {
            throw new IllegalArgumentException("jfabric provider " + provider + " has no endpoint at " + inet + ": "
                    + e.getMessage(), e);
        }
        return JfabricAddress.bind(provider, node(inet), service);
    }

    /**
     * Whom a client dials: {@code to} itself, or the endpoint of {@code provider} at that host and port, named as the
     * provider names it (fi_getinfo's dest_addr without FI_SOURCE). A host the provider has no way to (no interface
     * of its routes there) fails the connect, as an unreachable host does a socket's.
     */
    static JfabricAddress peerAddress(SocketAddress to, String provider) throws ConnectException {
        if (to instanceof JfabricAddress a) {
            return a;
        }
        InetSocketAddress inet = inet(to, provider, "dials");
        FabricInfo info;
        try {
            info = resolve(provider, inet, Integer.toString(inet.getPort()), 0);
        } catch (FabricException e) {
            ConnectException ce = new ConnectException("jfabric provider " + provider + " has no endpoint that reaches "
                    + inet + ": " + e.getMessage());
            ce.initCause(e);
            throw ce;
        }
        if (info.destAddr == null) {
            throw new ConnectException("jfabric provider " + provider + " gave no address for " + inet);
        }
        return JfabricAddress.of(provider, info.destAddr);
    }

    /** The provider's first answer to the host and service, which must be in an IP socket address format. */
    private static FabricInfo resolve(String provider, InetSocketAddress inet, String service, long flags) {
        FabricInfo hints = LoopDomain.hints(provider);
        if (MsgPath.isConnected(provider)) {
            hints.epAttr.type = EndpointType.MSG;
        }
        FabricInfo info = Fabrics.getInfo(Fabrics.API_VERSION, node(inet), service, flags, hints).getFirst();
        if (!isSocketAddress(info.addrFormat)) {
            throw new IllegalArgumentException("jfabric provider " + provider + " has no host-and-port addresses ("
                    + info.addrFormat + "): use a JfabricAddress, not " + inet);
        }
        return info;
    }

    private static InetSocketAddress inet(SocketAddress a, String provider, String verb) {
        if (!(a instanceof InetSocketAddress inet)) {
            throw new IllegalArgumentException("a jfabric channel " + verb + " a JfabricAddress or an InetSocketAddress,"
                    + " not " + (a == null ? "null" : a.getClass().getName() + " " + a));
        }
        if (provider == null) {
            throw new IllegalArgumentException("a jfabric channel " + verb + " " + inet
                    + " only over a provider named with JfabricChannelOption.PROVIDER (\"tcp;ofi_rxm\", \"tcp\" ...)");
        }
        return inet;
    }

    /**
     * The numeric host. A loopback address loses its scope ({@code ::1%lo}, as Netty's {@code NetUtil.LOCALHOST}
     * holds it), which resolvers of providers' nodes refuse and loopback does not need.
     */
    private static String node(InetSocketAddress inet) {
        if (inet.isUnresolved()) {
            return inet.getHostString();
        }
        String host = inet.getAddress().getHostAddress();
        int scope = host.indexOf('%');
        return scope >= 0 && inet.getAddress().isLoopbackAddress() ? host.substring(0, scope) : host;
    }

    private static boolean isSocketAddress(AddressFormat format) {
        return format == AddressFormat.SOCKADDR_IN || format == AddressFormat.SOCKADDR_IN6
                || format == AddressFormat.SOCKADDR;
    }
}
