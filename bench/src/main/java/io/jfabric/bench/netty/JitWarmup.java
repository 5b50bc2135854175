package io.jfabric.bench.netty;

/**
 * When a forked transport's warm-up is over: once the JIT has spent under {@link #QUIET_SHARE} of a round's wall
 * time compiling, for {@link #QUIET_ROUNDS} rounds in a row, or at the time limit. On two cores the C2 compiler
 * thread takes most of one core for the first 5-10 s of Netty and gRPC traffic, and every round measured while it
 * runs is measured on one core; the rounds that follow are the steady state the targets are about.
 */
final class JitWarmup {
    static final double QUIET_SHARE = 0.02;
    static final int QUIET_ROUNDS = 2;

    private final long limitNanos;
    private long elapsedNanos;
    private int quietInARow;
    private int rounds;

    JitWarmup(double limitSeconds) {
        this.limitNanos = (long) (limitSeconds * 1e9);
    }

    /** Records one warm-up round; true when warm-up is over. */
    boolean roundDone(long compileMillis, long wallNanos) {
        rounds++;
        elapsedNanos += wallNanos;
        quietInARow = compileMillis * 1e6 < QUIET_SHARE * wallNanos ? quietInARow + 1 : 0;
        return quietInARow >= QUIET_ROUNDS || elapsedNanos >= limitNanos;
    }

    /** Whether warm-up ended because the JIT went quiet rather than at the time limit. */
    boolean quiet() {
        return quietInARow >= QUIET_ROUNDS;
    }

    int rounds() {
        return rounds;
    }

    double seconds() {
        return elapsedNanos / 1e9;
    }
}
