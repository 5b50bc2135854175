/**
 * jfabric's tcp provider: FI_EP_MSG over java.nio speaking libfabric 1.17's tcp wire protocol (version 3).
 */
module io.jfabric.provider.tcp {
    requires io.jfabric;
    requires io.jfabric.util;
    requires jdk.net; // TCP keepalive timing for the user_timeout parameter

    exports io.jfabric.provider.tcp.wire;

    provides io.jfabric.spi.FabricProvider with io.jfabric.provider.tcp.TcpProvider;
}
