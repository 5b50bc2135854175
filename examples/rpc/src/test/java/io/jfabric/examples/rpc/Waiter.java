package io.jfabric.examples.rpc;

import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/** Drives an engine's progress and trigger until a condition holds, failing after a bound. */
final class Waiter {
    private Waiter() {
    }

    static long until(RpcEngine engine, BooleanSupplier done, long boundMillis, String what) {
        long start = System.nanoTime();
        long deadline = start + boundMillis * 1_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail(what + ": not done within " + boundMillis + " ms");
            }
            engine.progress(20);
            engine.trigger(64);
        }
        return (System.nanoTime() - start) / 1_000_000L;
    }
}
