// fi_getinfo(3) FI_RMA_EVENT and fi_endpoint(3) FI_REMOTE_WRITE / FI_REMOTE_READ: an endpoint of an info with
// FI_RMA_EVENT whose counters are bound with FI_REMOTE_WRITE and FI_REMOTE_READ counts each RMA write and read it is
// the target of. The target (b) binds one counter of each kind; the initiator (a) posts 4 writes and 3 reads of 4 KiB,
// each completed at a, then both sides progress for up to 3 s while b's counters are read.
// Run: ./rma_event_cntr <provider> [msg|rdm], e.g. ./rma_event_cntr tcp msg, ./rma_event_cntr shm
#include "repro.h"

#define LEN 4096
#define WRITES 4
#define READS 3
static char target[WRITES * LEN];
static char local[WRITES * LEN];
static struct fid_cntr *rem_wr, *rem_rd;

static void bind_remote_counters(struct end *s) {
    if (s != end_b) return;
    struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_UNSPEC };
    CHECK(fi_cntr_open(s->domain, &ca, &rem_wr, NULL));
    CHECK(fi_cntr_open(s->domain, &ca, &rem_rd, NULL));
    CHECK(fi_ep_bind(s->ep, &rem_wr->fid, FI_REMOTE_WRITE));
    CHECK(fi_ep_bind(s->ep, &rem_rd->fid, FI_REMOTE_READ));
}

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end a, b;
    before_enable = bind_remote_counters;
    open_pair(argv[1], type_arg(argc, argv, FI_EP_RDM), FI_MSG | FI_RMA | FI_RMA_EVENT, &a, &b);
    printf("info caps %s FI_RMA_EVENT\n", (info->caps & FI_RMA_EVENT) ? "include" : "lack");
    struct fid_mr *mr = reg(&b, target, sizeof target, FI_REMOTE_READ | FI_REMOTE_WRITE, 0x7701);
    struct fid_mr *lmr = reg(&a, local, sizeof local, FI_READ | FI_WRITE, 0x7702);
    memset(local, 7, sizeof local);
    static struct fi_context2 ctx;
    for (int i = 0; i < WRITES; i++) {
        POST(fi_write(a.ep, local + i * LEN, LEN, fi_mr_desc(lmr), a.peer, rma_addr(target) + i * LEN, fi_mr_key(mr), &ctx));
        if (cq_wait(a.tx, NULL, NULL, 3000) != 1) verdict(0, "write %d did not complete at the initiator", i);
    }
    for (int i = 0; i < READS; i++) {
        POST(fi_read(a.ep, local, LEN, fi_mr_desc(lmr), a.peer, rma_addr(target) + i * LEN, fi_mr_key(mr), &ctx));
        if (cq_wait(a.tx, NULL, NULL, 3000) != 1) verdict(0, "read %d did not complete at the initiator", i);
    }
    uint64_t w = 0, r = 0;
    for (long end = now_ms() + 3000; now_ms() < end && (w < WRITES || r < READS);) {
        drive();
        w = fi_cntr_read(rem_wr);
        r = fi_cntr_read(rem_rd);
    }
    int landed = 1;
    for (size_t i = 0; i < sizeof target; i++) if (target[i] != 7) { landed = 0; break; }
    printf("target memory %s; FI_REMOTE_WRITE counter %lu, FI_REMOTE_READ counter %lu (errors %lu, %lu)\n",
           landed ? "holds every write" : "lacks some writes", (unsigned long) w, (unsigned long) r,
           (unsigned long) fi_cntr_readerr(rem_wr), (unsigned long) fi_cntr_readerr(rem_rd));
    verdict(w == WRITES && r == READS, "the target's remote counters read %lu writes and %lu reads after %d writes and %d reads",
            (unsigned long) w, (unsigned long) r, WRITES, READS);
}
