package io.jfabric.netty;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import static org.junit.jupiter.api.Assertions.assertFalse;

/** The guard is active in this module: an interrupt one test leaves behind is gone when the next begins. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StrayInterruptGuardTest {
    @Test
    @Order(1)
    void leavesAnInterrupt() {
        Thread.currentThread().interrupt();
    }

    @Test
    @Order(2)
    void theNextTestStartsUninterrupted() {
        assertFalse(Thread.currentThread().isInterrupted(), "the interrupt the previous test left was cleared");
    }
}
