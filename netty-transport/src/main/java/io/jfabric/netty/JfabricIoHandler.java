package io.jfabric.netty;

import io.jfabric.FabricInfo;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.netty.util.concurrent.ThreadAwareExecutor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Netty 4.2's I/O side of one event loop on jfabric (the counterpart of EpollIoHandler): each turn it polls every
 * registered channel's completion queue, which also drives the providers' manual progress, and when no channel had
 * work and the loop may block it waits in {@link IdleWait} (on the loop's wait set, which the channels' CQs join)
 * until a completion, the next scheduled task or a {@link #wakeup()}.
 *
 * <p>It also owns the loop's fabric and domain per provider ({@link LoopDomain}), so that everything a channel on
 * this loop opens is used by this loop's thread only.
 */
public final class JfabricIoHandler implements IoHandler {
    private static final System.Logger LOG = System.getLogger("jfabric.netty");
    static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final ThreadAwareExecutor executor;
    /** One instance, so that a loop resumed on another thread does not add it twice. */
    private final Runnable closeOnShutdown = this::closeRegistered;
    private final ArrayList<Registration> registrations = new ArrayList<>();
    private final Map<String, LoopDomain> domains = new HashMap<>();
    private final ArrayList<FrameStream> lingering = new ArrayList<>();
    private final IdleWait idle = new IdleWait();
    /** {@link #domains}' values, which the loop walks each idle turn without an iterator. */
    private final ArrayList<LoopDomain> domainList = new ArrayList<>();
    /** Turns counted so that a loop that never idles still reads its peer-failure events. */
    private int turns;
    /** A loop busy on every turn reads its domains' peer-failure events once in this many turns (less one). */
    private static final int PEER_EVENT_TURNS = 1023;
    /**
     * An idle loop reads them at most this often: reading an event queue drives the provider's progress once more
     * (ofi_rxm reads each connection's socket), which an idle turn between two messages should not pay. A loop
     * asleep in its wait set wakes for an event, as the queue is in the set.
     */
    private static final long PEER_EVENT_NANOS = 1_000_000;
    private long peerEventsReadAt;
    private volatile Thread thread;
    private boolean cancelled;

    private JfabricIoHandler(ThreadAwareExecutor executor) {
        this.executor = executor;
    }

    /**
     * The factory a {@link io.netty.channel.MultiThreadIoEventLoopGroup} makes each loop's handler with. Its loops may
     * change threads, so an auto-scaling group can suspend an idle one (Netty suspends only a loop with nothing
     * registered): nothing here is bound to a thread (the domains are FI_THREAD_DOMAIN, one caller at a time, not
     * one thread), and {@link #initialize} notes the thread a resumed loop runs on, which {@link #wakeup} unparks.
     */
    public static IoHandlerFactory newFactory() {
        return new IoHandlerFactory() {
            @Override
            public IoHandler newHandler(ThreadAwareExecutor executor) {
                return new JfabricIoHandler(executor);
            }

            @Override
            public boolean isChangingThreadSupported() {
                return true;
            }
        };
    }

    /**
     * Also closes the channels from a shutdown hook. Netty's loop may stop without a last {@link #prepareToDestroy}
     * (a shutdown with no quiet period begun after that turn's check, from a task on the loop say), but it runs its
     * shutdown hooks while it still takes tasks, so the events of those closes (channelInactive,
     * channelUnregistered) still run; closed in {@link #destroy}, the stopped loop refuses them.
     */
    @Override
    public void initialize() {
        thread = Thread.currentThread();
        if (executor instanceof SingleThreadEventExecutor loop) {
            loop.addShutdownHook(closeOnShutdown);
        }
    }

    @Override
    public int run(IoHandlerContext context) {
        if (thread == null) {
            thread = Thread.currentThread();
        }
        int work = 0;
        ArrayList<Registration> regs = registrations;
        for (int i = 0; i < regs.size(); i++) {
            Registration r = regs.get(i);
            if (r.valid) {
                try {
                    work += r.handle.poll();
                } catch (RuntimeException e) {
                    work++;
                    pollFailed(r.handle, e);
                }
            }
        }
        if (!lingering.isEmpty()) {
            work += pollLingering();
        }
        if ((++turns & PEER_EVENT_TURNS) == 0) {
            work += pollPeerEvents();
        }
        if (cancelled) {
            regs.removeIf(r -> !r.valid);
            cancelled = false;
        }
        if (work > 0) {
            idle.reset();
        } else if (context.canBlock()) {
            long now = System.nanoTime();
            if (now - peerEventsReadAt > PEER_EVENT_NANOS) {
                peerEventsReadAt = now;
                work = pollPeerEvents();
            }
            if (work == 0) {
                idle.idle(this, now, lingering.isEmpty() ? context.delayNanos(now)
                        : Math.min(context.delayNanos(now), untilFirstLingerDeadline(now)), context);
            }
        }
        return work;
    }

    /**
     * A channel's poll threw (a bug in the transport, not the peer's doing): that channel closes with the cause, as
     * a malformed frame closes its channel only, and the loop goes on with the others. Left to propagate, the
     * exception would end the loop's thread and every channel registered on it.
     */
    private static void pollFailed(JfabricIoHandle handle, RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "a jfabric channel failed in its event loop and is closed", e);
        try {
            handle.pollFailed(e);
        } catch (RuntimeException again) {
            e.addSuppressed(again);
            LOG.log(System.Logger.Level.WARNING, "closing the failed jfabric channel failed too", again);
        }
    }

    /** Peer-failure events are rare: an idle loop reads them now and then, and so does one that never idles. */
    private int pollPeerEvents() {
        int n = 0;
        for (int i = 0; i < domainList.size(); i++) {
            n += domainList.get(i).pollPeerEvents();
        }
        return n;
    }

    /**
     * A closed channel's stream stays here until its last sends (the closing FIN among them) complete, or
     * {@link #LINGER_NANOS} pass, so that closing right after a write loses nothing; then its endpoint closes.
     */
    void linger(FrameStream stream) {
        stream.linger(System.nanoTime() + LINGER_NANOS);
        lingering.add(stream);
    }

    /** A lingering stream whose sends never complete wakes nobody: the loop must not sleep past its deadline. */
    private long untilFirstLingerDeadline(long now) {
        long first = Long.MAX_VALUE;
        for (int i = 0; i < lingering.size(); i++) {
            first = Math.min(first, Math.max(0, lingering.get(i).lingerDeadline - now));
        }
        return first;
    }

    private int pollLingering() {
        int work = 0;
        long now = System.nanoTime();
        for (int i = lingering.size() - 1; i >= 0; i--) {
            FrameStream s = lingering.get(i);
            boolean done;
            try {
                work += s.poll();
                done = s.link.txIdle() && s.finSent() || now - s.lingerDeadline > 0;
            } catch (RuntimeException e) {
                // its channel has closed already: nothing to tell, and the stream's last sends are given up
                LOG.log(System.Logger.Level.WARNING, "a closed jfabric channel's last sends failed", e);
                done = true;
            }
            if (done) {
                lingering.remove(i);
                s.link.close();
            }
        }
        return work;
    }

    @Override
    public void wakeup() {
        Thread t = thread;
        if (t != null && !executor.isExecutorThread(Thread.currentThread())) {
            idle.wakeup(t);
        }
    }

    @Override
    public void prepareToDestroy() {
        closeRegistered();
    }

    private void closeRegistered() {
        for (Registration r : new ArrayList<>(registrations)) {
            if (r.valid) {
                r.handle.closeNow();
            }
        }
    }

    /**
     * A channel still registered here missed both {@link #prepareToDestroy} and the shutdown hook (a task the loop
     * ran just before the hooks' turn): it closes all the same (its close future completes; the events Netty would
     * run later are refused by the stopped loop), and whatever link is left closes with its domain.
     */
    @Override
    public void destroy() {
        closeRegistered();
        registrations.clear();
        for (FrameStream s : lingering) {
            s.link.close();
        }
        lingering.clear();
        for (LoopDomain d : domains.values()) {
            try {
                d.close();
            } catch (RuntimeException ignored) {
                // shutting the loop down: close the other providers' domains all the same
            }
        }
        domains.clear();
        domainList.clear();
        // last: the domains' CQs leave the set as they close
        idle.close();
    }

    @Override
    public IoRegistration register(IoHandle handle) {
        JfabricIoHandle h = (JfabricIoHandle) handle;
        Registration r = new Registration(h);
        registrations.add(r);
        h.registered(this);
        return r;
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return JfabricIoHandle.class.isAssignableFrom(handleType);
    }

    /** This loop's domain for endpoints of {@code info}, opened on first use; loop thread only. */
    LoopDomain domain(FabricInfo info) {
        String key = LoopDomain.key(info);
        LoopDomain d = domains.get(key);
        if (d == null) {
            d = LoopDomain.open(info, idle);
            domains.put(key, d);
            domainList.add(d);
        }
        return d;
    }

    /** A channel's place in the loop; its attachment is the handler, which channels ask for their domain. */
    private final class Registration implements IoRegistration {
        final JfabricIoHandle handle;
        volatile boolean valid = true;

        Registration(JfabricIoHandle handle) {
            this.handle = handle;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T attachment() {
            return (T) JfabricIoHandler.this;
        }

        @Override
        public long submit(IoOps ops) {
            throw new UnsupportedOperationException("jfabric channels have no I/O ops to submit");
        }

        @Override
        public boolean isValid() {
            return valid;
        }

        @Override
        public boolean cancel() {
            if (!valid) {
                return false;
            }
            valid = false;
            if (executor.isExecutorThread(Thread.currentThread())) {
                unregistered();
            } else {
                executor.execute(this::unregistered);
            }
            return true;
        }

        private void unregistered() {
            cancelled = true;
            handle.unregistered();
        }
    }
}
