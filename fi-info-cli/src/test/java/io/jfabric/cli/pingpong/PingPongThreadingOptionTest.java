package io.jfabric.cli.pingpong;

import io.jfabric.Threading;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --threading}: jfabric's addition to fi_pingpong's options, which leave the hints' level unset. */
@Timeout(30)
class PingPongThreadingOptionTest {

    private static PingPongOptions parse(String... args) {
        PingPongCommand cmd = new PingPongCommand();
        new CommandLine(cmd).parseArgs(args);
        return cmd.options();
    }

    @Test
    void unsetByDefaultAsInFiPingpong() {
        assertNull(parse("-p", "shm", "-e", "rdm").threading());
    }

    @Test
    void takesALevelByItsShortOrCName() {
        assertEquals(Threading.DOMAIN, parse("--threading", "domain").threading());
        assertEquals(Threading.SAFE, parse("--threading", "FI_THREAD_SAFE").threading());
    }

    @Test
    void anUnknownLevelIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse("--threading", "fast"));
        assertTrue(e.getMessage().contains("fast"), e.getMessage());
    }
}
