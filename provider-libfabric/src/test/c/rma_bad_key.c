// fi_rma(3), fi_mr(3): an RMA the target's registration does not allow must fail with an error completion and leave
// the target alone. Run: ./rma_bad_key <provider> <case>, case one of
//   wrongkey  fi_writemsg(FI_DELIVERY_COMPLETE) through a key never registered
//   beyond    fi_writemsg(FI_DELIVERY_COMPLETE) of 64 KiB starting in the middle of a 64 KiB region
//   readonly  fi_writemsg(FI_DELIVERY_COMPLETE) through a key registered with FI_REMOTE_READ only
//   readwo    fi_read through a key registered with FI_REMOTE_WRITE only
// env TC=1 posts the writes with FI_TRANSMIT_COMPLETE instead (then success at the initiator is allowed, but the
// target must still be untouched).
#include "repro.h"

#define LEN (64 * 1024)
// the region is the first half; the second half is a guard the "beyond" write would run into
static volatile char target[2 * LEN];
static char local[LEN];

int main(int argc, char **argv) {
    usage_if(argc, argv);
    const char *which = argc > 2 ? argv[2] : "wrongkey";
    struct end a, b;
    open_pair(argv[1], FI_EP_RDM, FI_MSG | FI_RMA, &a, &b);
    memset((void *) target, 44, sizeof target);
    int read_case = strcmp(which, "readwo") == 0;
    uint64_t acc = read_case ? FI_REMOTE_WRITE : strcmp(which, "readonly") == 0 ? FI_REMOTE_READ
                                                                                 : FI_REMOTE_READ | FI_REMOTE_WRITE;
    struct fid_mr *mr = reg(&b, (void *) target, LEN, acc, 0x7700);
    uint64_t key = strcmp(which, "wrongkey") == 0 ? fi_mr_key(mr) ^ 0x5A5A00 : fi_mr_key(mr);
    uint64_t addr = rma_addr((void *) target) + (strcmp(which, "beyond") == 0 ? LEN / 2 : 0);
    static struct fi_context2 ctx;
    ssize_t rc;
    long end = now_ms() + 5000;
    int tc = getenv("TC") != NULL;
    if (read_case) {
        memset(local, 0x11, LEN);
        while ((rc = fi_read(a.ep, local, LEN, NULL, a.peer, addr, key, &ctx)) == -FI_EAGAIN && now_ms() < end) drive();
    } else {
        memset(local, (char) 202, LEN);
        struct iovec iov = { .iov_base = local, .iov_len = LEN };
        struct fi_rma_iov rma = { .addr = addr, .len = LEN, .key = key };
        struct fi_msg_rma msg = { .msg_iov = &iov, .iov_count = 1, .addr = a.peer, .rma_iov = &rma, .rma_iov_count = 1,
                                  .context = &ctx };
        uint64_t flags = FI_COMPLETION | (tc ? FI_TRANSMIT_COMPLETE : FI_DELIVERY_COMPLETE);
        while ((rc = fi_writemsg(a.ep, &msg, flags)) == -FI_EAGAIN && now_ms() < end) drive();
    }
    printf("%s: post returned %zd (%s)\n", which, rc, fi_strerror((int) -rc));
    int comp = 0; struct fi_cq_err_entry ee;
    if (rc == 0) comp = cq_wait(a.tx, NULL, &ee, 3000);
    progress(200);
    int touched = 0;
    for (size_t i = 0; i < sizeof target; i++) touched |= target[i] != 44;
    int leaked = read_case && local[0] != 0x11;
    printf("%s: completion %s; target %s\n", which,
           rc != 0 ? "none (post failed)" : comp == 1 ? "success" : comp == 0 ? "none within 3 s" : fi_strerror(-comp),
           touched ? "CHANGED" : "untouched");
    int refused = rc == 0 ? comp < 0 || (tc && comp == 1) : rc != -FI_EAGAIN;
    verdict(refused && !touched && !leaked, "%s: %s%s%s", which,
            rc == -FI_EAGAIN ? "the post answered -FI_EAGAIN for 5 s" : rc < 0 ? "refused at post time"
            : comp == 1 ? "completed successfully" : comp == 0 ? "never completed" : "failed with an error completion",
            touched ? ", and the target memory changed" : "", leaked ? ", and target data reached the initiator" : "");
}
