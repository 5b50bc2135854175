package io.jfabric.provider.tcp;

import java.lang.foreign.Arena;
import org.junit.jupiter.api.AfterEach;

/**
 * A loopback pair whose test flips one tcp parameter by system property: the property, the pair and the memory
 * the test allocated are given back after each test, so the next one starts from the default.
 */
abstract class ParameterLoopbackTest {
    final Arena arena = Arena.ofShared();
    Loopback pair;

    /** The system property the test sets. */
    abstract String property();

    @AfterEach
    void tearDown() {
        System.clearProperty(property());
        if (pair != null) {
            pair.close();
        }
        arena.close();
    }
}
