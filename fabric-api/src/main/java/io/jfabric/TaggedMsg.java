package io.jfabric;

/** Mirrors {@code struct fi_msg_tagged}. */
public class TaggedMsg extends Msg {
    public long tag;
    public long ignore;

    public TaggedMsg() {
        super();
    }

    public TaggedMsg(int maxIov) {
        super(maxIov);
    }
}
