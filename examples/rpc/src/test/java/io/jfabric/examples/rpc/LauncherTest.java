package io.jfabric.examples.rpc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's commands: {@code ./jfabric rpc server} and {@code ./jfabric rpc copy} against it, as two
 * processes started through the launcher script, which must pass the options through and let the JVM call
 * native code. The launcher's build step is bypassed (JFABRIC_RPC_CLASSPATH): the tests already run on a
 * built class path.
 */
class LauncherTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp;ofi_rxm"})
    @Timeout(120)
    void rpcServerAndCopyRunFromTheLauncher(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        byte[] data = new byte[(1 << 20) + 4321];
        new Random(provider.hashCode()).nextBytes(data);
        Path file = dir.resolve("input.bin");
        Files.write(file, data);
        Path addr = dir.resolve("server.addr");
        Path store = dir.resolve("store");
        ServerProcess server = ServerProcess.launcher(dir, "server", "server", "-p", provider,
                "--addr-file", addr.toString(), "--dir", store.toString());
        try (server) {
            server.awaitAddressFile(addr);
            try (ServerProcess client = ServerProcess.launcher(dir, "client", "copy", "-p", provider,
                    "--addr-file", addr.toString(), "--file", file.toString(), "--chunk", "256K", "--shutdown")) {
                assertEquals(0, client.awaitExit(60_000), "client exit status; its output:\n" + client.output()
                        + "\nserver:\n" + server.output());
                assertTrue(client.output().contains("OK " + data.length + " bytes"), client.output());
            }
            assertEquals(0, server.awaitExit(20_000), "server exits after SHUTDOWN:\n" + server.output());
            assertTrue(server.output().contains("BYE"), server.output());
        }
        assertFalse(server.process.isAlive(), "the server is gone");
        assertArrayEquals(data, Files.readAllBytes(store.resolve("input.bin")), "server's stored copy");
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("input.bin.readback")), "client's read-back copy");
    }

    @Test
    @Timeout(60)
    void rpcHelpNamesTheProgramsAndHowToPassOptions() throws Exception {
        try (ServerProcess help = ServerProcess.launcher(dir, "help", "--help")) {
            assertEquals(0, help.awaitExit(30_000), help.output());
            for (String expected : new String[] {"./jfabric rpc server -p", "./jfabric rpc copy", "./jfabric rpc bench",
                    "--addr-file", "--file"}) {
                assertTrue(help.output().contains(expected), "help mentions " + expected + ":\n" + help.output());
            }
        }
    }

    @Test
    @Timeout(60)
    void anUnknownProgramIsRefusedWithTheUsage() throws Exception {
        try (ServerProcess wrong = ServerProcess.launcher(dir, "wrong", "serve")) {
            assertNotEquals(0, wrong.awaitExit(30_000), wrong.output());
            assertTrue(wrong.output().contains("unknown rpc program 'serve'"), wrong.output());
            assertTrue(wrong.output().contains("usage: ./jfabric rpc"), wrong.output());
        }
    }

    @Test
    @Timeout(60)
    void programOptionsReachTheProgram() throws Exception {
        try (ServerProcess usage = ServerProcess.launcher(dir, "usage", "copy", "--help")) {
            assertEquals(0, usage.awaitExit(30_000), usage.output());
            assertTrue(usage.output().contains("usage: FileCopyClient"), usage.output());
        }
    }
}
