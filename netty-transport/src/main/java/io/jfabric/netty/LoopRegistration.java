package io.jfabric.netty;

import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;

/** A jfabric channel's place on its event loop: registering its handle, and cancelling that at deregistration. */
final class LoopRegistration {
    private IoRegistration registration;

    /** Whether {@code loop} runs a {@link JfabricIoHandler} (what a jfabric channel can register with). */
    static boolean compatible(EventLoop loop, Class<? extends JfabricIoHandle> handleType) {
        return loop instanceof IoEventLoop io && io.isCompatible(handleType);
    }

    void register(EventLoop loop, JfabricIoHandle handle, ChannelPromise promise) {
        ((IoEventLoop) loop).register(handle).addListener(f -> {
            if (f.isSuccess()) {
                registration = (IoRegistration) f.getNow();
                promise.setSuccess();
            } else {
                promise.setFailure(f.cause());
            }
        });
    }

    void cancel() {
        if (registration != null) {
            registration.cancel();
        }
    }
}
