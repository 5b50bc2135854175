package io.jfabric.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The check every test class of the module ends with: it fails on a buffer dropped unreleased, and only then. */
class NoBufferLeaksTest {
    @Test
    void aDroppedPooledBufferFailsTheCheckAndAReleasedOneDoesNot() throws Throwable {
        RecordingLeakDetector.expectingLeaks(NoBufferLeaksTest::dropAndCheck);
    }

    private static void dropAndCheck() throws Exception {
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        try {
            NoBufferLeaks.check("the classes before this one");
            PooledByteBufAllocator.DEFAULT.directBuffer(64).writeLong(1).release();
            assertDoesNotThrow(() -> NoBufferLeaks.check("a released buffer"));

            dropOne();
            AssertionError failed = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (failed == null && System.nanoTime() < deadline) {
                try {
                    NoBufferLeaks.check("a dropped buffer");
                } catch (AssertionError e) {
                    failed = e;
                }
            }
            AssertionError e = failed;
            assertTrue(e != null && e.getMessage().startsWith("1 buffer(s) collected unreleased after a dropped buffer"),
                    "the check names the leak: " + e);
            assertDoesNotThrow(() -> NoBufferLeaks.check("the reported leak"), "a leak is reported once");
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
    }

    @Test
    void anInterruptLeftOnTheThreadDoesNotFailTheCheck() {
        Thread.currentThread().interrupt();
        try {
            assertDoesNotThrow(() -> NoBufferLeaks.check("an interrupted thread"));
        } finally {
            assertTrue(Thread.interrupted(), "the check leaves the interrupt where it found it");
        }
    }

    private static void dropOne() {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        b.writeLong(2); // and never released
    }
}
