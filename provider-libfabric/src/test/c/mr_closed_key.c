// fi_mr(3): fi_close of a memory region releases the registration; its key no longer grants remote access, so an
// fi_write through a closed registration's key must complete with an error and leave the memory alone.
// Registers a buffer, writes through its key, closes it, re-registers the buffer under another key, writes through
// the new key, then writes through the closed key. FI_LOG_LEVEL=warn shows what the target side thinks of it.
#include "repro.h"

static volatile char target[4096];
static char src[4096];

static int landed(int seed) {
    for (long end = now_ms() + 2000; now_ms() < end; drive())
        if (target[0] == seed && target[sizeof target - 1] == seed) return 1;
    return 0;
}

static void write_and_wait(struct end *a, uint64_t key, int seed, const char *what) {
    memset(src, seed, sizeof src);
    POST(fi_write(a->ep, src, sizeof src, NULL, a->peer, rma_addr((void *) target), key, NULL));
    if (cq_wait(a->tx, NULL, NULL, 5000) != 1 || !landed(seed)) {
        printf("SETUP FAILED: the write %s did not arrive\n", what); exit(2);
    }
}

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end a, b;
    open_pair(argv[1], type_arg(argc, argv, FI_EP_RDM), FI_MSG | FI_RMA, &a, &b);
    uint64_t acc = FI_REMOTE_WRITE | FI_REMOTE_READ;
    struct fid_mr *first = reg(&b, (void *) target, sizeof target, acc, 0x1111);
    uint64_t closed_key = fi_mr_key(first);
    write_and_wait(&a, closed_key, 61, "through the first registration");
    CHECK(fi_close(&first->fid));
    struct fid_mr *second = reg(&b, (void *) target, sizeof target, acc, 0x2222);
    write_and_wait(&a, fi_mr_key(second), 62, "through the re-registration");
    if (fi_mr_key(second) == closed_key) verdict(1, "not applicable: the re-registration got the closed key back");
    memset(src, 63, sizeof src);
    POST(fi_write(a.ep, src, sizeof src, NULL, a.peer, rma_addr((void *) target), closed_key, NULL));
    struct fi_cq_err_entry ee;
    int rc = cq_wait(a.tx, NULL, &ee, 3000);
    int touched = landed(63);
    printf("write through the closed key 0x%lx: %s; target byte %d\n", (unsigned long) closed_key,
           rc == 1 ? "succeeded" : rc == 0 ? "no completion in 3 s" : fi_strerror(-rc), target[0]);
    verdict(rc < 0 && !touched, "a write through a closed registration's key %s%s",
            rc == 1 ? "completed successfully" : rc == 0 ? "never completed" : "failed",
            touched ? " and changed the target" : "");
}
