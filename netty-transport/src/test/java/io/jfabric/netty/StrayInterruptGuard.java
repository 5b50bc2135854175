package io.jfabric.netty;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Clears an interrupt left on the test thread before each test starts, and says so on stderr. Once in CI a test
 * class's first wait failed with InterruptedException right after GrpcOverJfabricTest had passed: something (not
 * jfabric's code, which interrupts no other thread) interrupted the thread between the classes. A stray interrupt
 * from one class must not fail the next one's first wait; a test that is interrupted while it runs still fails.
 */
public final class StrayInterruptGuard implements BeforeEachCallback {
    @Override
    public void beforeEach(ExtensionContext context) {
        if (Thread.interrupted()) {
            System.err.println("StrayInterruptGuard: cleared an interrupt left on the test thread before "
                    + context.getDisplayName() + " in " + context.getRequiredTestClass().getSimpleName());
        }
    }
}
