// fi_tagged(3): fi_trecvmsg with FI_PEEK looks for a message that has arrived unexpected and reports it (a
// completion with its tag and length) or, finding none, "an error completion with FI_ENOMSG"; fi_msg(3): a message
// sent with no receive posted waits at the target until a receive matches it. Peeks before anything was sent (must
// complete with FI_ENOMSG), sends one 100-byte tagged message with no receive posted, peeks for it for 3 s, then
// tries a second send. DC=1 sends with FI_DELIVERY_COMPLETE (the default tx
// op_flags of a null-hints shm info, as the conformance cases get it).
#include "repro.h"

static int peek(struct end *b, char *buf, uint64_t tag, struct fi_context2 *ctx, struct fi_cq_tagged_entry *found) {
    struct iovec iov = { .iov_base = buf, .iov_len = 100 };
    struct fi_msg_tagged m = { .msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .tag = tag, .context = ctx };
    ssize_t rc = fi_trecvmsg(b->ep, &m, FI_PEEK);
    if (rc == -FI_EAGAIN) return 0;
    if (rc < 0) return (int) rc;
    struct fi_cq_err_entry ee;
    int got = cq_wait(b->rx, found, &ee, 1000);
    return got == 1 ? 1 : got == 0 ? 0 : got;
}

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end a, b;
    open_pair(argv[1], FI_EP_RDM, FI_TAGGED, &a, &b);
    static char tx[100], rx[100];
    static struct fi_context2 sctx, pctx;
    memset(tx, 31, sizeof tx);
    printf("tx op_flags 0x%lx\n", (unsigned long) info->tx_attr->op_flags);
    struct fi_cq_tagged_entry found = {0};
    int empty = peek(&b, rx, 0x1234, &pctx, &found);
    printf("FI_PEEK before any send: %s\n", empty == -FI_ENOMSG ? "FI_ENOMSG" : empty == 0 ? "no completion in 1 s"
           : empty == 1 ? "found something" : fi_strerror(-empty));
    POST(fi_tsend(a.ep, tx, sizeof tx, NULL, a.peer, 0x1234, &sctx));
    int rc = 0;
    for (long end = now_ms() + 3000; now_ms() < end;) {
        rc = peek(&b, rx, 0x1234, &pctx, &found);
        if (rc == 1) break;
        drive();
    }
    int sent = cq_wait(a.tx, NULL, NULL, 200);
    printf("FI_PEEK: %s; first send %s\n", rc == 1 ? "found the message" : rc == -FI_ENOMSG ? "-FI_ENOMSG for 3 s"
           : rc == 0 ? "no answer" : fi_strerror(-rc), sent == 1 ? "completed" : "not completed");
    ssize_t second;
    long end = now_ms() + 3000;
    while ((second = fi_tsend(a.ep, tx, sizeof tx, NULL, a.peer, 0x99, &sctx)) == -FI_EAGAIN && now_ms() < end) drive();
    printf("second fi_tsend: %zd (%s)\n", second, fi_strerror((int) -second));
    verdict(empty == -FI_ENOMSG && rc == 1 && found.tag == 0x1234 && found.len == 100 && second == 0,
            "FI_PEEK of nothing %s; FI_PEEK %s the unexpected message; a second send %s",
            empty == -FI_ENOMSG ? "gave FI_ENOMSG" : "never completed", rc == 1 ? "found" : "did not find",
            second == 0 ? "was accepted" : "answered -FI_EAGAIN for 3 s");
}
