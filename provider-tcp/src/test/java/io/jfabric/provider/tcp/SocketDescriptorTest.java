package io.jfabric.provider.tcp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The descriptor lookup: a live connection's two ends resolve to their own descriptors (bytes written on the one
 * found for the client arrive at the accepted end), descriptors that are not connected sockets never match, a
 * socket reachable through two descriptors is refused, and /proc/self/fd's names parse as numbers or not at all.
 */
class SocketDescriptorTest {
    @TempDir
    Path dir;

    @Test
    void aConnectionsEndsResolveToTheirOwnDescriptors() throws Exception {
        try (ServerSocketChannel server = listener();
             SocketChannel client = SocketChannel.open(server.getLocalAddress());
             SocketChannel accepted = server.accept();
             Arena arena = Arena.ofConfined()) {
            int c = SocketDescriptor.of(client);
            int a = SocketDescriptor.of(accepted);
            assertTrue(c >= 0 && a >= 0, "client " + c + ", accepted " + a);
            assertNotEquals(c, a);
            MemorySegment scratch = arena.allocate(SocketCalls.PORTS_SCRATCH, 8);
            assertEquals(SocketDescriptor.ports(port(client.getLocalAddress()), port(client.getRemoteAddress())),
                    SocketCalls.ports(c, scratch));
            // the proof: what goes out on the client's descriptor comes in at the accepted end
            SocketCalls calls = SocketCalls.of(client, 2);
            assertNotNull(calls);
            ByteBuffer out = ByteBuffer.allocateDirect(5).put("hello".getBytes()).flip();
            assertEquals(5, calls.write(out, SocketCalls.baseOf(out)));
            ByteBuffer in = ByteBuffer.allocate(5);
            while (in.hasRemaining()) {
                accepted.read(in);
            }
            assertEquals("hello", new String(in.array()));
        }
    }

    @Test
    void descriptorsThatAreNotConnectedSocketsNeverMatch() throws Exception {
        Path file = Files.writeString(dir.resolve("plain"), "x");
        try (FileChannel f = FileChannel.open(file, StandardOpenOption.READ);
             ServerSocketChannel server = listener();
             Arena arena = Arena.ofConfined()) {
            MemorySegment scratch = arena.allocate(SocketCalls.PORTS_SCRATCH, 8);
            assertEquals(-1, SocketCalls.ports(descriptorLinkedTo(file.toRealPath().toString()), scratch), "a file");
            assertEquals(-1, SocketCalls.ports(-1, scratch), "no descriptor");
            assertEquals(-1, SocketCalls.ports(Integer.MAX_VALUE, scratch), "a closed descriptor");
            assertTrue(f.isOpen() && server.isOpen());
        }
    }

    @Test
    void aSocketBehindTwoDescriptorsIsRefused() throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle dup = linker.downcallHandle(linker.defaultLookup().find("dup").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        MethodHandle close = linker.downcallHandle(linker.defaultLookup().find("close").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        try (ServerSocketChannel server = listener();
             SocketChannel client = SocketChannel.open(server.getLocalAddress());
             SocketChannel accepted = server.accept()) {
            int c = SocketDescriptor.of(client);
            assertTrue(c >= 0 && accepted.isConnected());
            int copy = (int) dup.invokeExact(c);
            assertTrue(copy >= 0, "dup failed");
            try {
                assertEquals(-1, SocketDescriptor.of(client), "two descriptors match: which one is not known");
            } finally {
                int rc = (int) close.invokeExact(copy);
                assertEquals(0, rc);
            }
            assertEquals(c, SocketDescriptor.of(client));
        }
    }

    @Test
    void descriptorNamesParseAsDecimalNumbersOnly() {
        assertEquals(0, SocketDescriptor.descriptorNumber("0"));
        assertEquals(1234, SocketDescriptor.descriptorNumber("1234"));
        assertEquals(-1, SocketDescriptor.descriptorNumber(""));
        assertEquals(-1, SocketDescriptor.descriptorNumber("12a"));
        assertEquals(-1, SocketDescriptor.descriptorNumber("-1"));
        assertEquals(-1, SocketDescriptor.descriptorNumber("1234567890"), "longer than any descriptor");
    }

    private static ServerSocketChannel listener() throws Exception {
        return ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    private static int port(java.net.SocketAddress a) {
        return ((InetSocketAddress) a).getPort();
    }

    private static int descriptorLinkedTo(String target) throws Exception {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path p : fds) {
                try {
                    if (Files.readSymbolicLink(p).toString().equals(target)) {
                        return Integer.parseInt(p.getFileName().toString());
                    }
                } catch (java.io.IOException e) {
                    // the directory stream's own descriptor, gone by now
                }
            }
        }
        throw new AssertionError("no descriptor links to " + target);
    }
}
