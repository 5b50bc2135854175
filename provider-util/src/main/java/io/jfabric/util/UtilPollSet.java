package io.jfabric.util;

import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricObject;
import io.jfabric.PollSet;

import java.util.Arrays;

/**
 * libfabric's util poll set ({@code prov/util/src/util_poll.c}, fi_poll(3)) for every provider, the libfabric
 * provider's native queues included: completion queues and counters of any domain; {@link #poll} drives each
 * distinct progress hook once and reports the context of each member with events. Membership changes copy the
 * arrays (control path); poll allocates nothing.
 */
public final class UtilPollSet extends UtilFabricObject implements PollSet {
    /** One immutable snapshot, so a poll never pairs one membership's queues with another's contexts. */
    private record Members(Waitable[] queues, Object[] contexts, ProgressHook progress) {
    }

    private final Object membership = new Object();
    private volatile Members members = new Members(new Waitable[0], new Object[0], ProgressHook.NONE);

    public UtilPollSet() {
        super("poll set");
    }

    @Override
    public void add(FabricObject member, Object context) {
        checkOpen("add to");
        if (!(member instanceof CompletionQueue) && !(member instanceof Counter)) {
            throw new FabricException(Errno.EINVAL, "a poll set holds completion queues and counters, not " + member);
        }
        if (!(member instanceof Waitable w)) {
            throw new FabricException(Errno.ENOSYS, member + " is not a queue a poll set can look at: it is "
                    + "neither a Java provider's nor the libfabric bridge's");
        }
        synchronized (membership) {
            Waitable[] queues = members.queues();
            Object[] contexts = members.contexts();
            for (Waitable q : queues) {
                if (q == w) {
                    throw new FabricException(Errno.EINVAL, member + " is already in this poll set");
                }
            }
            Waitable[] q = Arrays.copyOf(queues, queues.length + 1);
            Object[] c = Arrays.copyOf(contexts, contexts.length + 1);
            q[q.length - 1] = w;
            c[c.length - 1] = context == null ? member : context;
            acquire();
            publish(q, c);
        }
    }

    @Override
    public void remove(FabricObject member) {
        synchronized (membership) {
            Waitable[] q = members.queues();
            Object[] contexts = members.contexts();
            for (int i = 0; i < q.length; i++) {
                if (q[i] == member) {
                    Waitable[] nq = new Waitable[q.length - 1];
                    Object[] nc = new Object[q.length - 1];
                    System.arraycopy(q, 0, nq, 0, i);
                    System.arraycopy(q, i + 1, nq, i, q.length - i - 1);
                    System.arraycopy(contexts, 0, nc, 0, i);
                    System.arraycopy(contexts, i + 1, nc, i, q.length - i - 1);
                    publish(nq, nc);
                    release();
                    return;
                }
            }
        }
        throw new FabricException(Errno.EINVAL, member + " is not in this poll set");
    }

    private void publish(Waitable[] q, Object[] c) {
        members = new Members(q, c, MemberProgress.of(q));
    }

    @Override
    public int poll(Object[] out, int count) {
        if (out == null || count < 0 || count > out.length) {
            return -Errno.EINVAL;
        }
        Members m = members;
        Waitable[] q = m.queues();
        Object[] c = m.contexts();
        m.progress().progress();
        int n = 0;
        for (int i = 0; i < q.length && n < count; i++) {
            if (q[i].takeEvents()) {
                out[n++] = c[i];
            }
        }
        return n;
    }

    @Override
    protected void doClose() {
    }

    @Override
    public String toString() {
        return "UtilPollSet[members=" + members.queues().length + "]";
    }
}
