package io.jfabric.provider.tcp;

import jdk.net.ExtendedSocketOptions;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.channels.SocketChannel;

/**
 * The {@code user_timeout} parameter on one data connection: how long the peer may leave sent data
 * unacknowledged (Linux TCP_USER_TIMEOUT), or an idle connection unanswered to keepalive probes
 * (TCP_KEEPIDLE/INTVL/CNT), before the kernel fails the connection with ETIMEDOUT; without it, a host that
 * vanishes mid-transfer is noticed after the kernel's retransmission limit (about 15 minutes) and an idle
 * one after two hours of keepalive. java.nio offers the keepalive options but not TCP_USER_TIMEOUT, and no
 * descriptor: the descriptor is found among the process's own ({@link SocketDescriptor}) and the option set with
 * setsockopt(2) through FFM. Linux only; elsewhere, or when the
 * lookup fails, only the keepalive part applies and a warning is logged.
 */
final class UserTimeout {
    private static final System.Logger LOG = io.jfabric.util.FabricLog.logger(TcpParams.PROV);
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_USER_TIMEOUT = 18;
    private static final int KEEPALIVE_PROBES = 3;

    private UserTimeout() {
    }

    /** Applies {@link TcpParams#USER_TIMEOUT_MS} to {@code ch}, a connected socket; nothing when it is 0. */
    static void apply(SocketChannel ch) {
        int ms = TcpParams.USER_TIMEOUT_MS.get();
        if (ms <= 0) {
            return;
        }
        try {
            int probeSec = Math.max(1, ms / 1000 / (KEEPALIVE_PROBES + 1));
            ch.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, probeSec);
            ch.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, probeSec);
            ch.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, KEEPALIVE_PROBES);
            int fd = SocketDescriptor.of(ch);
            if (fd < 0) {
                LOG.log(System.Logger.Level.WARNING, "user_timeout: no descriptor found for {0}; only keepalive"
                        + " applies", ch);
                return;
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment v = arena.allocate(ValueLayout.JAVA_INT);
                v.set(ValueLayout.JAVA_INT, 0, ms);
                int rc = (int) Native.SETSOCKOPT.invokeExact(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, v, 4);
                if (rc != 0) {
                    LOG.log(System.Logger.Level.WARNING, "user_timeout: setsockopt(TCP_USER_TIMEOUT) failed on {0}", ch);
                }
            }
        } catch (Throwable e) {
            LOG.log(System.Logger.Level.WARNING, "user_timeout not applied to {0}: {1}", ch, e.toString());
        }
    }

    /** setsockopt(2), looked up on first use so a process that never sets the parameter never links it. */
    private static final class Native {
        static final MethodHandle SETSOCKOPT = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().find("setsockopt").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    }
}
