package io.jfabric.provider.tcp;

/** An object whose sockets a read of a CQ, EQ or counter (manual progress) or the progress thread drives. */
interface Progressable {
    /** Data progress: sends and receives. Returns the amount of work done. */
    int progressData();

    /** Control progress: connection setup and teardown. Returns the amount of work done. */
    int progressControl();

    /** Its connection may join {@code set} once idle (only the first set offered counts). */
    default void watchIdleIn(QuietSet set) {
    }
}
