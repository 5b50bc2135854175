package io.jfabric.conformance;

import io.jfabric.CompletionQueue;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.OpFlags;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Waits on queues with a deadline while driving progress on every other queue it knows (manual progress
 * happens only inside reads, and both ends of an in-process test need it).
 */
final class Poller {
    static final CqEntry[] NONE = new CqEntry[0];
    /** Result of a wait that ran out of time. */
    static final int TIMED_OUT = -Errno.ETIMEDOUT;

    private final List<CompletionQueue> cqs = new ArrayList<>();
    private final List<EventQueue> eqs = new ArrayList<>();
    private final EqEntry peekEntry = new EqEntry();

    void add(CompletionQueue cq) {
        if (cq != null && !cqs.contains(cq)) {
            cqs.add(cq);
        }
    }

    void add(EventQueue eq) {
        if (eq != null && !eqs.contains(eq)) {
            eqs.add(eq);
        }
    }

    static final long POST_TIMEOUT_MS = 20_000;

    /**
     * Posts an operation, retrying -FI_EAGAIN (a full queue, or an RDM connection still being set up, both
     * legal answers) while progress runs, and asserts the provider took it.
     */
    void post(String what, java.util.function.IntSupplier op) {
        int rc = tryPost(op);
        assertEquals(0, rc, what + " returned " + Errno.name(rc) + " (" + Errno.strerror(rc) + ")");
    }

    /** As {@link #post} but returns the final result instead of asserting it. */
    int tryPost(java.util.function.IntSupplier op) {
        long deadline = System.nanoTime() + Slow.ms(POST_TIMEOUT_MS) * 1_000_000L;
        int rc;
        while ((rc = op.getAsInt()) == -Errno.EAGAIN && System.nanoTime() - deadline < 0) {
            drive();
            Thread.onSpinWait();
        }
        return rc;
    }

    /** Drives progress everywhere without taking anything. */
    void drive() {
        for (CompletionQueue cq : cqs) {
            int rc = cq.read(NONE, 0);
            if (rc < 0 && rc != -Errno.EAGAIN && rc != -Errno.EAVAIL) {
                fail("progress read on " + cq + " returned " + Errno.name(rc));
            }
        }
        for (EventQueue eq : eqs) {
            eq.read(peekEntry, OpFlags.PEEK);
        }
    }

    /**
     * Waits for one completion on {@code cq}: 1 with {@code out} filled, -EAVAIL with {@code err} filled,
     * or {@link #TIMED_OUT}.
     */
    int awaitCq(CompletionQueue cq, CqEntry out, CqErrEntry err, long timeoutMillis) {
        long deadline = System.nanoTime() + Slow.ms(timeoutMillis) * 1_000_000L;
        while (true) {
            int rc = cq.read(out);
            if (rc == 1) {
                return 1;
            }
            if (rc == -Errno.EAVAIL) {
                assertEquals(1, cq.readError(err, 0), "fi_cq_read said EAVAIL but fi_cq_readerr has no entry");
                return -Errno.EAVAIL;
            }
            if (rc != -Errno.EAGAIN) {
                fail("fi_cq_read on " + cq + " returned " + rc + " (" + Errno.name(rc) + ")");
            }
            if (System.nanoTime() - deadline > 0) {
                return TIMED_OUT;
            }
            drive();
            Thread.onSpinWait();
        }
    }

    /** Waits for a successful completion and returns it; fails on an error completion or time-out. */
    CqEntry expectSuccess(CompletionQueue cq, CqEntry out, long timeoutMillis, String what) {
        CqErrEntry err = new CqErrEntry();
        int rc = awaitCq(cq, out, err, timeoutMillis);
        if (rc == -Errno.EAVAIL) {
            fail(what + ": error completion " + err);
        }
        if (rc == TIMED_OUT) {
            fail(what + ": no completion within " + timeoutMillis + " ms on " + cq);
        }
        return out;
    }

    /** Waits for an error completion and returns it; fails on success or time-out. */
    CqErrEntry expectError(CompletionQueue cq, long timeoutMillis, String what) {
        CqEntry out = new CqEntry();
        CqErrEntry err = new CqErrEntry();
        int rc = awaitCq(cq, out, err, timeoutMillis);
        if (rc == 1) {
            fail(what + ": expected an error completion, got success " + out);
        }
        if (rc == TIMED_OUT) {
            fail(what + ": no completion within " + timeoutMillis + " ms on " + cq);
        }
        return err;
    }

    /** Asserts {@code cq} yields nothing for {@code millis} while progress runs. */
    void expectQuiet(CompletionQueue cq, long millis, String what) {
        CqEntry out = new CqEntry();
        CqErrEntry err = new CqErrEntry();
        int rc = awaitCq(cq, out, err, millis);
        if (rc == 1) {
            fail(what + ": unexpected completion " + out);
        }
        if (rc == -Errno.EAVAIL) {
            fail(what + ": unexpected error completion " + err);
        }
    }

    /**
     * Waits for an event on {@code eq}: the event number with {@code out} filled, -EAVAIL with {@code err}
     * filled, or {@link #TIMED_OUT}.
     */
    int awaitEvent(EventQueue eq, EqEntry out, EqErrEntry err, long timeoutMillis) {
        long deadline = System.nanoTime() + Slow.ms(timeoutMillis) * 1_000_000L;
        while (true) {
            int rc = eq.read(out, 0);
            if (rc >= 0) {
                return rc;
            }
            if (rc == -Errno.EAVAIL) {
                int n = eq.readError(err, 0);
                if (n <= 0) {
                    fail("fi_eq_read said EAVAIL but fi_eq_readerr returned " + Errno.name(n));
                }
                return -Errno.EAVAIL;
            }
            if (rc != -Errno.EAGAIN) {
                fail("fi_eq_read on " + eq + " returned " + rc + " (" + Errno.name(rc) + ")");
            }
            if (System.nanoTime() - deadline > 0) {
                return TIMED_OUT;
            }
            drive();
            Thread.onSpinWait();
        }
    }

    /** Waits for event {@code expected}; fails on anything else. */
    EqEntry expectEvent(EventQueue eq, int expected, long timeoutMillis, String what) {
        EqEntry out = new EqEntry();
        EqErrEntry err = new EqErrEntry();
        int rc = awaitEvent(eq, out, err, timeoutMillis);
        if (rc == -Errno.EAVAIL) {
            fail(what + ": expected " + io.jfabric.EqEvent.toString(expected) + ", got error " + err);
        }
        if (rc == TIMED_OUT) {
            fail(what + ": no " + io.jfabric.EqEvent.toString(expected) + " within " + timeoutMillis + " ms on " + eq);
        }
        assertEquals(io.jfabric.EqEvent.toString(expected), io.jfabric.EqEvent.toString(rc), what + ": " + out);
        return out;
    }
}
