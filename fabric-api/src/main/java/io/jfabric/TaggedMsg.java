package io.jfabric;

/** Mirrors {@code struct fi_msg_tagged}. */
public class TaggedMsg extends Msg {
    /** {@code tag}: the tag sent, or the tag a receive matches. */
    public long tag;
    /** {@code ignore}: for a receive, the tag bits it ignores ({@code (sent | ignore) == (tag | ignore)}). */
    public long ignore;

    /** A tagged message with room for four buffers. */
    public TaggedMsg() {
        super();
    }

    /**
     * A tagged message with room for {@code maxIov} buffers.
     *
     * @param maxIov the length of {@link #iov} and {@link #desc}
     */
    public TaggedMsg(int maxIov) {
        super(maxIov);
    }
}
