package io.jfabric;

/**
 * Mirrors a wait set ({@code struct fid_wait}, {@code fi_wait_open}, fi_poll(3)): one blocking wait over
 * several completion queues, event queues and counters, opened by {@link Fabric#openWait}.
 *
 * <p>A queue joins the set when it is opened with wait object FI_WAIT_SET and this set in its attributes
 * ({@link CqAttr#waitSet}, {@link EqAttr#waitSet}, {@link CounterAttr#waitSet}); it leaves when it is closed.
 * Queues of different fabrics and providers may share one set. The wait object a Java program gets is the
 * set itself: {@link #await} parks the calling thread (a virtual thread parks without pinning its carrier)
 * and, under FI_PROGRESS_MANUAL, drives the members' progress while it waits, sleeping on the provider's
 * own event source where the members share one.
 *
 * <p>An event loop uses it as fi_trywait(3) describes:
 * <pre>{@code
 * for (;;) {
 *     if (fabric.trywait(waitSet) == 0) {
 *         waitSet.await(timeoutMillis);   // or is woken early by waitSet.wakeup() from another thread
 *     }
 *     // read every member until -FI_EAGAIN
 * }
 * }</pre>
 */
public interface WaitSet extends FabricObject {
    /**
     * The attributes the set was opened with.
     *
     * @return its attributes
     */
    WaitAttr attr();

    /**
     * {@code fi_wait}: blocks until a member has an event to read, {@link #wakeup()} is called, or the
     * timeout passes. Like fi_wait it may return 0 without an event (a wake-up, or an event that progress
     * consumed internally): read the members and wait again.
     *
     * @param timeoutMillis how long to wait in milliseconds; negative waits forever, 0 only checks
     * @return 0 when a member has events or the set was woken, -FI_ETIMEDOUT on timeout, -FI_EINTR if the
     *     thread was interrupted (its interrupt status stays set), -FI_EBADF once the set is closed
     */
    int await(int timeoutMillis);

    /**
     * Wakes every thread blocked in {@link #await}, which returns 0; a wake-up with nobody waiting makes the
     * next {@link #await} return at once. Safe from any thread: this is how another thread (an event loop's
     * task queue, say) interrupts a blocked wait, as fi_cq_signal does for one queue.
     */
    void wakeup();

    /**
     * Whether any member has an event to read now, after driving the members' progress once; the
     * negation of what {@link Fabric#trywait} answers for this set.
     *
     * @return true when a read on some member would not return -FI_EAGAIN
     */
    boolean hasEvents();
}
