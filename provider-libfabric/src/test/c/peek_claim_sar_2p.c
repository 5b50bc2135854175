// fi_tagged(3): FI_PEEK|FI_CLAIM reports an unexpected message and reserves it; a following fi_trecvmsg with
// FI_CLAIM and the same context receives that message into its buffer. Two processes, as the cross-implementation
// matrix runs it (deviation 1): a forked initiator sends one tagged message of <size> bytes (default 131072), the
// target peeks for it with FI_PEEK|FI_CLAIM until found and claims it into a registered buffer of size + 64 bytes.
// Hints as the matrix's nodes ask: FI_MSG|FI_RMA|FI_TAGGED|FI_MULTI_RECV, FI_CONTEXT|FI_CONTEXT2, node 127.0.0.1
// with FI_SOURCE, tagged CQs of 32 entries, FI_OPT_MIN_MULTI_RECV 1. Run it with FI_OFI_RXM_ENABLE_DYN_RBUF=0.
// SETTLE=ms (default 200) lets every segment arrive at the target before its first peek, as a sender in another
// process makes happen; SETTLE=0 peeks at once. The one-process peek_claim_sar.c passes where this one fails
// because there the sender's segments move only while the target polls.
#include "repro.h"
#include <sys/wait.h>

static const size_t GUARD = 64;

static void open_node(const char *prov, struct end *s, struct fid_mr **mr, void *area, size_t len) {
    struct fi_info *hints = fi_allocinfo(), *out = NULL;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG | FI_RMA | FI_TAGGED | FI_MULTI_RECV;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup(prov);
    CHECK(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", "0", FI_SOURCE, hints, &out));
    fi_freeinfo(hints);
    info = out;
    memset(s, 0, sizeof *s);
    CHECK(fi_fabric(info->fabric_attr, &s->fabric, NULL));
    CHECK(fi_domain(s->fabric, info, &s->domain, NULL));
    struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_TAGGED, .size = 32, .wait_obj = FI_WAIT_NONE };
    CHECK(fi_cq_open(s->domain, &ca, &s->tx, NULL));
    CHECK(fi_cq_open(s->domain, &ca, &s->rx, NULL));
    struct fi_av_attr aa = { .type = info->domain_attr->av_type };
    CHECK(fi_av_open(s->domain, &aa, &s->av, NULL));
    CHECK(fi_mr_reg(s->domain, area, len, FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE,
                    0, 0xC0FFEE, 0, mr, NULL));
    CHECK(fi_endpoint(s->domain, info, &s->ep, NULL));
    CHECK(fi_ep_bind(s->ep, &s->tx->fid, FI_TRANSMIT));
    CHECK(fi_ep_bind(s->ep, &s->rx->fid, FI_RECV));
    CHECK(fi_ep_bind(s->ep, &s->av->fid, 0));
    CHECK(fi_enable(s->ep));
    size_t one = 1;
    CHECK(fi_setopt(&s->ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &one, sizeof one));
    end_a = s;
}

// Sends this endpoint's name down `to` and inserts the one read from `from` as the peer.
static void swap_names(struct end *s, int to, int from) {
    char name[256], peer[256];
    size_t len = sizeof name;
    CHECK(fi_getname(&s->ep->fid, name, &len));
    if (write(to, &len, sizeof len) != sizeof len || write(to, name, len) != (ssize_t) len) exit(2);
    size_t plen;
    if (read(from, &plen, sizeof plen) != sizeof plen || plen > sizeof peer || read(from, peer, plen) != (ssize_t) plen) {
        printf("SETUP FAILED: no peer name\n"); exit(2);
    }
    if (fi_av_insert(s->av, peer, 1, &s->peer, 0, NULL) != 1) { printf("SETUP FAILED: av insert\n"); exit(2); }
}

static char pattern(size_t i) { return (char) (i * 7 % 251); }

// The forked initiator: one fi_tsend, its completion, then it waits for the target's word to close.
static void initiator(const char *prov, size_t size, int to, int from) {
    struct end s;
    struct fid_mr *mr;
    char *tx = aligned_alloc(4096, (size + 4095) / 4096 * 4096 + 4096);
    open_node(prov, &s, &mr, tx, size + 1);
    for (size_t i = 0; i < size; i++) tx[i] = pattern(i);
    swap_names(&s, to, from);
    static struct fi_context2 ctx;
    POST(fi_tsend(s.ep, tx, size, fi_mr_desc(mr), s.peer, 0x1234, &ctx));
    struct fi_cq_err_entry ee;
    int rc = cq_wait(s.tx, NULL, &ee, 8000);
    if (rc != 1) fprintf(stderr, "initiator: fi_tsend %s\n", rc == 0 ? "never completed" : fi_strerror(-rc));
    char done;
    while (read(from, &done, 1) < 0) { } // keeps the connection up until the target has its verdict
    _exit(0);
}

int main(int argc, char **argv) {
    usage_if(argc, argv);
    size_t size = argc > 2 ? strtoul(argv[2], NULL, 0) : 131072;
    long settle = getenv("SETTLE") ? atol(getenv("SETTLE")) : 200;
    int down[2], up[2];
    if (pipe(down) || pipe(up)) exit(2);
    pid_t child = fork();
    if (child == 0) {
        close(down[1]); close(up[0]);
        prov_name = argv[1];
        alarm(12);
        initiator(argv[1], size, up[1], down[0]);
    }
    close(down[0]); close(up[1]);
    prov_name = argv[1];
    signal(SIGALRM, on_alarm_exit);
    alarm(10);
    struct end s;
    struct fid_mr *mr;
    char *rx = aligned_alloc(4096, (size + GUARD + 4095) / 4096 * 4096);
    memset(rx, 0xEE, size + GUARD);
    open_node(argv[1], &s, &mr, rx, size + GUARD);
    swap_names(&s, down[1], up[0]);
    progress(settle);
    void *desc = fi_mr_desc(mr);
    struct iovec iov = { .iov_base = rx, .iov_len = size + GUARD };
    static struct fi_context2 pctx;
    struct fi_msg_tagged m = { .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = s.peer, .tag = 0x1234, .context = &pctx };
    struct fi_cq_tagged_entry got = {0};
    int rc;
    int claimed = peek_then_claim(s.ep, s.rx, &m, 4000, 0, &got, &rc);
    size_t good = 0;
    while (good < size && rx[good] == pattern(good)) good++;
    if (claimed != 1 && rc == 1) printf("bytes of the message in the buffer: %zu of %zu\n", good, size);
    int same = claimed == 1 && got.len == size && good == size && rx[size] == (char) 0xEE;
    if (write(down[1], "q", 1) != 1) { }
    int status;
    waitpid(child, &status, 0);
    verdict(rc == 1 && same, "a %zu-byte tagged message from another process found by FI_PEEK|FI_CLAIM %s", size,
            rc != 1 ? "was never found" : claimed == 1 ? (same ? "was claimed intact" : "was claimed with wrong length or data")
            : claimed == 0 ? "was never delivered by FI_CLAIM" : "failed its FI_CLAIM receive");
}
