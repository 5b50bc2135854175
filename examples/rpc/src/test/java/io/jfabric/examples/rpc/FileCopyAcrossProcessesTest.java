package io.jfabric.examples.rpc;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two example programs in two JVMs on each RDM provider: the client writes a file (not a multiple of
 * the chunk size) through bulk pulls, reads it back through bulk pushes, checks CRC32C and asks the
 * server to exit; the server's stored copy must be byte-identical too.
 */
class FileCopyAcrossProcessesTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jfabric.examples.rpc.Providers#all")
    @Timeout(120)
    void clientCopiesAFileThroughTheServerAndReadsItBack(String provider) throws Exception {
        copy(provider);
    }

    /** The same with the server's progress on a background thread and its handlers on the main thread. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jfabric.examples.rpc.Providers#all")
    @Timeout(120)
    void copyWorksWithAServerProgressThread(String provider) throws Exception {
        copy(provider, "--progress-thread");
    }

    private void copy(String provider, String... serverOptions) throws Exception {
        Providers.assumeAvailable(provider);
        byte[] data = new byte[3 * (1 << 20) + 12345];
        new Random(provider.hashCode()).nextBytes(data);
        Path file = dir.resolve("input.bin");
        Files.write(file, data);
        try (ServerProcess server = ServerProcess.server(dir, provider, serverOptions)) {
            ServerProcess client = ServerProcess.start(dir, "client", FileCopyClient.class, "-p", provider,
                    "--addr-file", dir.resolve("server.addr").toString(), "--file", file.toString(),
                    "--chunk", "1M", "--window", "3", "--shutdown");
            try (client) {
                int rc = client.awaitExit(90_000);
                assertEquals(0, rc, "client exit status; its output:\n" + client.output() + "\nserver:\n" + server.output());
                assertTrue(client.output().contains("OK " + data.length + " bytes"), client.output());
            }
            assertEquals(0, server.awaitExit(20_000), "server exits after SHUTDOWN:\n" + server.output());
            assertTrue(server.output().contains("BYE"), server.output());
        }
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("store").resolve("input.bin")), "server's stored copy");
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("input.bin.readback")), "client's read-back copy");
    }
}
