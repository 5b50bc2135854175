package io.jfabric.netty;

import io.netty.channel.IoEvent;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;

/**
 * What a {@link JfabricIoHandler} drives: a channel's side of the event loop. The handler calls {@link #poll()}
 * on every turn; jfabric has no readiness events to hand out, so {@link #handle} is never called.
 */
interface JfabricIoHandle extends IoHandle {
    /** Reads the channel's completions and acts on them; returns how much work it found (0 when idle). */
    int poll();

    /** Registered on {@code handler}'s loop: the channel may open its endpoint there now. */
    void registered(JfabricIoHandler handler);

    /** Closes the channel now, as its loop shuts down. */
    void closeNow();

    /** {@link #poll()} threw {@code cause}: the channel closes, telling its pipeline why. */
    void pollFailed(RuntimeException cause);

    @Override
    default void handle(IoRegistration registration, IoEvent ioEvent) {
        // never called: progress is driven by poll()
    }
}
