package io.jfabric;

/**
 * Mirrors a poll set ({@code struct fid_poll}, {@code fi_poll_open}, fi_poll(3)): progresses a group of
 * completion queues and counters and says which of them may have events, without blocking. Members may
 * belong to different domains and providers. Opened by {@link Domain#openPoll}.
 */
public interface PollSet extends FabricObject {
    /**
     * {@code fi_poll_add}: adds a completion queue or counter.
     *
     * @param member a {@link CompletionQueue} or {@link Counter}
     * @param context what {@link #poll} reports for this member (fi_cq_open's context); null reports the
     *     member itself
     * @throws FabricException EINVAL for another kind of object or a member already in the set, ENOSYS for a
     *     queue this implementation cannot poll (a native queue of the libfabric bridge)
     */
    void add(FabricObject member, Object context);

    /**
     * {@code fi_poll_del}: removes a member.
     *
     * @param member a member added before
     * @throws FabricException EINVAL if it is not a member
     */
    void remove(FabricObject member);

    /**
     * {@code fi_poll}: progresses every member once and fills {@code contexts} with the context of each
     * completion queue that is not empty and each counter whose success or error value changed since the
     * last poll. Like fi_poll it may report a member whose events progress then consumed internally.
     *
     * @param contexts caller-owned array, overwritten from index 0
     * @param count the most contexts to report
     * @return how many contexts were written (0 when nothing is pending), or -FI_EINVAL for a bad array
     */
    int poll(Object[] contexts, int count);
}
