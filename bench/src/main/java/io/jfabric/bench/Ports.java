package io.jfabric.bench;

import java.io.IOException;

/**
 * Control ports for the benchmark pairs: a fresh one per run between 48100 and 49900, starting from a place that
 * depends on this process's id so that two bench runs on one machine rarely reach for the same port.
 */
final class Ports {
    private int next = 48_100 + (int) (ProcessHandle.current().pid() % 500) * 2;

    int next() throws IOException {
        for (int tries = 0; tries < 1000; tries++) {
            int p = next;
            next = next >= 49_900 ? 48_100 : next + 1;
            if (!ProcessRunner.listening(p)) {
                return p;
            }
        }
        throw new IOException("no free control port between 48100 and 49900");
    }
}
