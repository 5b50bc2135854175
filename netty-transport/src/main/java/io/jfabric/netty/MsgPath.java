package io.jfabric.netty;

import io.jfabric.EndpointType;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The stream over a connected (FI_EP_MSG) provider: tcp, verbs, libfabric:tcp. The channel is the endpoint; the
 * passive endpoint and the CM do what CONNECT and ACCEPT frames do over RDM, and the connection data carries what
 * those frames carried (the sender's window and slot size). From then on the stream is the RDM one, unchanged: a
 * MSG endpoint is reliable and ordered, and the credit window keeps the peer from sending more than is posted.
 *
 * <p>A provider that offers RDM endpoints itself gets the RDM stream; one that offers only MSG endpoints gets this.
 */
final class MsgPath {
    /** Connection data: u32 window, u32 slot size, little-endian. */
    static final int CM_DATA = 8;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ConcurrentHashMap<String, Boolean> CONNECTED_ONLY = new ConcurrentHashMap<>();

    private MsgPath() {
    }

    /**
     * Whether {@code provider} has MSG endpoints but no RDM endpoint of its own, so its channels connect through
     * the CM. RDM infos of a utility layered over it do not count: discovery answers "tcp" with "tcp;ofi_rxm", but
     * whoever names "tcp" asks for tcp's own connected endpoints.
     */
    static boolean isConnected(String provider) {
        return CONNECTED_ONLY.computeIfAbsent(provider, MsgPath::probe);
    }

    private static Boolean probe(String provider) {
        try {
            for (FabricInfo rdm : LoopDomain.infos(provider, null, null)) {
                if (rdm.providerName().equals(provider)) {
                    return false;
                }
            }
        } catch (RuntimeException e) {
            // no RDM endpoint here: try MSG
        }
        try {
            return !infos(provider, null, null).isEmpty();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The stream's hints ({@link LoopDomain#hints}) for a FI_EP_MSG endpoint. */
    static List<FabricInfo> infos(String provider, String node, String service) {
        FabricInfo hints = LoopDomain.hints(provider);
        hints.epAttr.type = EndpointType.MSG;
        long flags = node != null || service != null ? Fabrics.SOURCE : 0;
        return Fabrics.getInfo(Fabrics.API_VERSION, node, service, flags, hints);
    }

    static byte[] cmData(int window, int slotSize) {
        byte[] data = new byte[CM_DATA];
        MemorySegment m = MemorySegment.ofArray(data);
        m.set(U32, 0, window);
        m.set(U32, 4, slotSize);
        return data;
    }

    /** The window in a peer's connection data, or -1 when the data is not the stream's. */
    static int window(byte[] cm) {
        return cm == null || cm.length < CM_DATA ? -1 : MemorySegment.ofArray(cm).get(U32, 0);
    }

    /** The slot size in a peer's connection data, or -1 when the data is not the stream's. */
    static int slotSize(byte[] cm) {
        return cm == null || cm.length < CM_DATA ? -1 : MemorySegment.ofArray(cm).get(U32, 4);
    }

    /**
     * Opens an endpoint on {@code handler}'s loop and connects it to {@code remote}: a listener's address (its
     * socket address as the name) or a host and port ({@link JfabricAddress#bind}). FI_CONNECTED arrives later on
     * the link's EQ ({@link CmEvents}).
     */
    static CmEvents dial(JfabricIoHandler handler, JfabricAddress remote, int window, int slotSize,
            FrameStream.Listener listener) {
        byte[] name = remote.nameNoCopy();
        String node = name == null ? remote.node() : SockAddr.host(name);
        String service = name == null ? remote.service() : Integer.toString(SockAddr.port(name));
        if (node == null || service == null) {
            throw new FabricException(io.jfabric.Errno.EINVAL, "jfabric: " + remote
                    + " names no host and port to connect to");
        }
        FabricInfo hints = LoopDomain.hints(remote.provider());
        hints.epAttr.type = EndpointType.MSG;
        FabricInfo info = Fabrics.getInfo(Fabrics.API_VERSION, node, service, 0, hints).getFirst();
        FrameLink link = open(handler, info, window, slotSize);
        try {
            link.ep.connect(info.destAddr, cmData(window, slotSize));
        } catch (RuntimeException e) {
            link.close();
            throw e;
        }
        return CmEvents.client(new FrameStream(link, window, listener), name != null ? name : info.destAddr);
    }

    /**
     * Opens the accepting endpoint of {@code connreq} on {@code handler}'s loop and accepts. Nothing is sent on it
     * before FI_CONNECTED (a native provider's accept response must go first), when {@link CmEvents} reports the
     * client's window and slot size as the RDM stream's ACCEPT would.
     */
    static CmEvents accept(JfabricIoHandler handler, FabricInfo connreq, byte[] peerName, int peerWindow,
            int peerSlotSize, int window, int slotSize, FrameStream.Listener listener) {
        FrameLink link = open(handler, connreq, window, slotSize);
        try {
            FrameStream stream = new FrameStream(link, window, listener);
            link.ep.accept(cmData(window, slotSize));
            return CmEvents.accepted(stream, peerName, cmData(peerWindow, peerSlotSize));
        } catch (RuntimeException e) {
            link.close();
            throw e;
        }
    }

    private static FrameLink open(JfabricIoHandler handler, FabricInfo info, int window, int slotSize) {
        LoopDomain d = handler.domain(info);
        EventQueue eq = d.openEq();
        return FrameLink.openConnected(d, info, eq, FrameStream.rxSlots(window), FrameStream.spareSlots(window),
                window + Frame.CONTROL_SLOTS, slotSize);
    }
}
