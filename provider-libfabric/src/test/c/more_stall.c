// FI_MORE (fi_msg(3)) may let a provider defer a transmit until a post without it comes, but everything posted must
// still go out. Windows of 64 messages, every post but the last with FI_MORE: first 200 windows of 64 B injects
// (fi_sendmsg(FI_INJECT | FI_MORE), then fi_inject), then 200 windows of 256 B sends (fi_sendmsg(FI_MORE |
// FI_COMPLETION), then fi_send). DEVIATION when a post keeps answering -FI_EAGAIN for 3 s or a window's messages
// never all arrive, or a send's completion comes back without the context it was posted with (fi_cq(3)):
// jfabric bw --rate --more -S 64,256 stalled on libfabric:tcp when such completions left its context slots taken. SEL=1 binds the transmit
// CQ with FI_SELECTIVE_COMPLETION, as the tool does (the injects then report nothing, the sends still do); OPCOMP=1
// adds FI_COMPLETION to the default tx op_flags, as the tool also does. Under SEL=1 a completion of an inject window
// is a DEVIATION too: fi_sendmsg's flags override op_flags (fi_endpoint(3)), and fi_inject never reports (fi_msg(3)).
// tcp 1.17 under SEL=1 OPCOMP=1 completes every fi_sendmsg(FI_INJECT | FI_MORE), with its NULL context: the stall's
// cause (the tool took those entries for its 256 B sends'; the libfabric provider now drops them).
#include "repro.h"

#define W 64
#define WINDOWS 200

static int post_more(struct end *a, void *buf, size_t len, uint64_t flags, void *ctx) {
    struct iovec iov = { buf, len };
    struct fi_msg m = { .msg_iov = &iov, .iov_count = 1, .addr = a->peer, .context = ctx };
    long end = now_ms() + 3000; ssize_t rc;
    while ((rc = fi_sendmsg(a->ep, &m, flags)) == -FI_EAGAIN && now_ms() < end) drive();
    return (int) rc;
}

static struct fi_context2 ctx[W];

static int window(struct end *a, struct end *b, char *tx, char *rx, size_t len, int inject, int *tx_done, int *null_ctx) {
    *tx_done = 0;
    for (int i = 0; i < W; i++) POST(fi_recv(b->ep, rx + i * 256, 256, NULL, FI_ADDR_UNSPEC, NULL));
    for (int i = 0; i < W; i++) {
        int rc;
        if (i < W - 1) rc = post_more(a, tx, len, (inject ? FI_INJECT : FI_COMPLETION) | FI_MORE, inject ? NULL : &ctx[i]);
        else { long end = now_ms() + 3000;
            while ((rc = (int) (inject ? fi_inject(a->ep, tx, len, a->peer) : fi_send(a->ep, tx, len, NULL, a->peer, &ctx[i]))) == -FI_EAGAIN
                   && now_ms() < end) drive(); }
        if (rc) return rc;
    }
    int got = 0; struct fi_cq_tagged_entry e[W]; long end = now_ms() + 3000;
    while (got < W && now_ms() < end) {
        ssize_t n = fi_cq_read(b->rx, e, W); if (n > 0) got += (int) n;
        n = fi_cq_read(a->tx, e, W);
        for (ssize_t k = 0; k < n; k++) {
            (*tx_done)++;
            if (!inject && e[k].op_context == NULL) (*null_ctx)++;
        }
    }
    if (!inject) {   // every send completes (under SEL=1 not the plain fi_send), each with its own context
        int want = tx_bind_flags ? W - 1 : W;
        while (*tx_done < want && now_ms() < end + 3000) {
            ssize_t n = fi_cq_read(a->tx, e, W);
            for (ssize_t k = 0; k < n; k++) { (*tx_done)++; if (e[k].op_context == NULL) (*null_ctx)++; }
        }
    }
    return got == W ? 0 : -FI_ETIMEDOUT;
}

int main(int argc, char **argv) {
    usage_if(argc, argv);
    alarm(20);
    if (getenv("SEL") && atoi(getenv("SEL"))) tx_bind_flags = FI_SELECTIVE_COMPLETION;
    struct end a, b;
    open_pair(argv[1], type_arg(argc, argv, FI_EP_MSG), FI_MSG, &a, &b);
    char *tx = calloc(1, 256), *rx = calloc(W, 256);
    int tx_done = 0, null_ctx = 0, inject_done = 0;
    for (int w = 0; w < WINDOWS; w++) {
        int rc = window(&a, &b, tx, rx, 64, 1, &tx_done, &null_ctx);
        if (rc) { verdict(0, "64 B window %d with FI_MORE: %d (%s)", w, rc, fi_strerror(-rc)); }
        inject_done += tx_done;
    }
    if (tx_bind_flags && inject_done) {
        verdict(0, "%d windows of 64 B fi_sendmsg(FI_INJECT|FI_MORE) and fi_inject on a FI_SELECTIVE_COMPLETION "
                "transmit CQ%s wrote %d completions", WINDOWS, getenv("OPCOMP") ? " (FI_COMPLETION in op_flags)" : "",
                inject_done);
    }
    for (int w = 0; w < WINDOWS; w++) {
        int rc = window(&a, &b, tx, rx, 256, 0, &tx_done, &null_ctx);
        if (rc) { verdict(0, "256 B window %d after %d windows of 64 B injects with FI_MORE: %d (%s)", w, WINDOWS, rc,
                          fi_strerror(-rc)); }
    }
    verdict(null_ctx == 0, "%d windows of 64 B injects and %d of 256 B sends, FI_MORE on all but each window's last "
            "post: %d send completions with a NULL op_context", WINDOWS, WINDOWS, null_ctx);
}
