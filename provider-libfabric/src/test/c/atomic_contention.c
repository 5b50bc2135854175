// fi_atomic(3) under contention across processes, as AtomicContentionTest's FI_SUM phase runs it: one target process
// registers a 64-byte buffer, four forked initiators each add 1 to its first uint64_t with fi_atomic(FI_SUM,
// FI_UINT64, one element), keeping WINDOW (16) in flight, until N (default 10000) have completed or TIME runs out.
// The target only drives progress on its CQs; at the end it checks the word equals 4 x N and prints each
// initiator's count, -FI_EAGAIN answers and time. Hints: FI_ATOMIC|FI_RMA|FI_MSG, tx op_flags as repro.h leaves them
// (without FI_DELIVERY_COMPLETE, as the suite's FabricCase.freshInfo does; DC=1 asks for it).
//   ./atomic_contention <prov> [sread|poll|park] [N]   how the initiators wait (default sread):
//     sread: fi_cq_sread(tx, 100 ms) on an FI_WAIT_UNSPEC CQ; poll: fi_cq_read busy polling; park: fi_cq_read and
//     a sleep of 20 us doubling to 1 ms, which is how the libfabric provider's sread waits (PollingWait)
//   TMODE=park|read|sread  how the target drives progress (default park, as AtomicContentionTest's driver thread:
//     rxCq.sread(10) is the provider's PollingWait, then a txCq read). sread hangs: no atomic writes a target
//     completion, and shm's fi_cq_sread ignores its timeout (util_wait_yield_run), the alarm ends it
//   OLD=1  an initiator that meets -FI_EAGAIN with nothing in flight waits for a completion (until TIME) instead of
//     driving progress and posting again, as AtomicPeer did before commit abff8a7
//   TIME=s (30): how long the initiators have; the alarm fires 10 s later.
// On shm a post with nothing in flight meets -FI_EAGAIN at the first post to the target (smr_verify_peer sends the
// connection request and answers -1) and whenever the target's command queue, shared by all initiators, is full:
// without FI_DELIVERY_COMPLETE smr_generic_atomic writes the completion at post time, so an initiator's window is
// often empty. fi_atomic(3) owes no completion for a refused post; OLD=1 therefore stalls every initiator (PASS).
// DC=1 on shm 1.17 (DEVIATION, fi_atomic(3)): the word ends at garbage or the target's progress segfaults. A plain
// atomic with FI_DELIVERY_COMPLETE goes by an inject buffer of the target's pool, and both the target
// (smr_progress_inject_atomic frees it when SMR_RMA_REQ is clear) and the initiator (smr_progress_resp_entry, on the
// response) return it to the pool.
#include "repro.h"
#include <rdma/fi_atomic.h>
#include <fcntl.h>
#include <sys/wait.h>

#define PEERS 4
#define WINDOW 16

struct result { int id; long done; long ms; long posted; long eagain; long idle_eagain; int hung; };

static int mode_of(const char *m) { return !m || !strcmp(m, "sread") ? 0 : !strcmp(m, "poll") ? 1 : 2; }
static const char *mode_name[] = { "fi_cq_sread", "fi_cq_read busy polling", "fi_cq_read + 20 us..1 ms sleeps" };

static void sleep_us(long us) { struct timespec t = { us / 1000000, (us % 1000000) * 1000 }; nanosleep(&t, NULL); }

// One completion (or error) of cq within ms, waiting the way mode says: 1, -err, or 0 on timeout.
static int wait_one(struct fid_cq *cq, int mode, long ms) {
    struct fi_cq_tagged_entry e; struct fi_cq_err_entry ee;
    long end = now_ms() + ms, park = 20;
    for (;;) {
        ssize_t n = mode == 0 ? fi_cq_sread(cq, &e, 1, NULL, (int) ms) : fi_cq_read(cq, &e, 1);
        if (n == 1) return 1;
        if (n == -FI_EAVAIL) { memset(&ee, 0, sizeof ee); fi_cq_readerr(cq, &ee, 0); return -(ee.err ? abs(ee.err) : 1); }
        if (n != -FI_EAGAIN) return (int) n;
        if (now_ms() >= end) return 0;
        if (mode == 2) { sleep_us(park); park = park * 2 > 1000 ? 1000 : park * 2; }
    }
}

static void open_end(struct end *s) {
    open_common(s);
    struct fi_av_attr aa = { .type = FI_AV_TABLE };
    CHECK(fi_av_open(s->domain, &aa, &s->av, NULL));
    bind_cqs(s, info);
}

static struct result me;
static int up_fd;
static void initiator_alarm(int sig) {
    (void) sig; me.hung = 1; me.ms = -1;
    if (write(up_fd, &me, sizeof me) != sizeof me) { }
    _exit(1);
}

static void initiator(int id, int mode, long n, long time_ms, int from, int to) {
    up_fd = to; me.id = id;
    signal(SIGALRM, initiator_alarm);
    alarm(time_ms / 1000 + 5);
    struct { size_t len; char name[256]; uint64_t key, addr; } t;
    if (read(from, &t, sizeof t) != sizeof t) _exit(2);
    info = get_info(prov_name, FI_EP_RDM, FI_ATOMIC | FI_RMA | FI_MSG);
    if (mode == 0) cq_wait_obj = FI_WAIT_UNSPEC;
    static struct end s;
    end_a = &s;
    open_end(&s);
    if (fi_av_insert(s.av, t.name, 1, &s.peer, 0, NULL) != 1) { printf("SETUP FAILED: av insert\n"); _exit(2); }
    static uint64_t one = 1;
    struct fid_mr *mr = reg(&s, &one, sizeof one, FI_READ | FI_WRITE, 0);
    long posted = 0, start = now_ms(), end = start + time_ms;
    int old = getenv("OLD") != NULL;
    while (me.done < n && now_ms() < end) {
        while (posted < n && posted - me.done < WINDOW) {
            ssize_t rc = fi_atomic(s.ep, &one, 1, fi_mr_desc(mr), s.peer, t.addr, t.key, FI_UINT64, FI_SUM, &one);
            if (rc == -FI_EAGAIN) { me.eagain++; if (posted == me.done) me.idle_eagain++; break; }
            if (rc) { printf("initiator %d: fi_atomic(FI_SUM) = %zd (%s)\n", id, rc, fi_strerror((int) -rc)); _exit(2); }
            posted++;
        }
        me.posted = posted;
        // nothing in flight after -FI_EAGAIN (shm's first post to a peer: smr_verify_peer sends the connection request
        // and answers -1; later: the target's shared command queue is full while every posted FI_SUM has completed
        // already): no completion is coming, so progress and post again. OLD=1 waits for a completion instead, until
        // the time is up, as AtomicPeer did before abff8a7
        if (posted == me.done && !old) { drive(); sleep_us(1000); continue; }
        int r = wait_one(s.tx, mode, posted == me.done ? end - now_ms() : 100);
        if (r < 0) { printf("initiator %d: error completion %s\n", id, fi_strerror(-r)); _exit(2); }
        me.done += r;
    }
    me.ms = now_ms() - start;
    if (write(to, &me, sizeof me) != sizeof me) _exit(2);
    char done;
    while (read(from, &done, 1) < 0) { } // keeps the endpoint up until the target has its verdict
    _exit(0);
}

int main(int argc, char **argv) {
    usage_if(argc, argv);
    prov_name = argv[1];
    int mode = mode_of(argc > 2 ? argv[2] : NULL);
    long n = argc > 3 ? atol(argv[3]) : 10000;
    long time_ms = (getenv("TIME") ? atol(getenv("TIME")) : 30) * 1000;
    int tmode = getenv("TMODE") ? (!strcmp(getenv("TMODE"), "read") ? 1 : !strcmp(getenv("TMODE"), "sread") ? 0 : 2) : 2;
    int down[PEERS][2], up[2];
    pid_t child[PEERS];
    if (pipe(up)) return 2;
    for (int i = 0; i < PEERS; i++) {
        if (pipe(down[i])) return 2;
        if ((child[i] = fork()) == 0) { close(up[0]); initiator(i, mode, n, time_ms, down[i][0], up[1]); }
    }
    close(up[1]);
    signal(SIGALRM, on_alarm_exit);
    alarm(time_ms / 1000 + 10);
    info = get_info(prov_name, FI_EP_RDM, FI_ATOMIC | FI_RMA | FI_MSG);
    if (tmode == 0) cq_wait_obj = FI_WAIT_UNSPEC;
    static struct end s;
    end_a = &s;
    open_end(&s);
    printf("%s, %d initiators x %ld FI_SUM (window %d), initiators wait with %s, the target with %s; tx op_flags%s "
           "FI_DELIVERY_COMPLETE\n", prov_name, PEERS, n, WINDOW, mode_name[mode],
           tmode == 0 ? "fi_cq_sread(rx, 10 ms)" : mode_name[tmode], info->tx_attr->op_flags & FI_DELIVERY_COMPLETE
           ? " carry" : " lack");
    static uint64_t words[8];
    struct fid_mr *mr = reg(&s, words, sizeof words, FI_REMOTE_READ | FI_REMOTE_WRITE, 0x5eed);
    struct { size_t len; char name[256]; uint64_t key, addr; } t = { .len = 256 };
    CHECK(fi_getname(&s.ep->fid, t.name, &t.len));
    t.key = fi_mr_key(mr); t.addr = rma_addr(words);
    for (int i = 0; i < PEERS; i++) if (write(down[i][1], &t, sizeof t) != sizeof t) return 2;
    struct result r[PEERS] = {0};
    int got = 0;
    fcntl(up[0], F_SETFL, O_NONBLOCK);
    struct fi_cq_tagged_entry e;
    long end = now_ms() + time_ms + 7000;
    while (got < PEERS && now_ms() < end) {
        if (tmode == 0) fi_cq_sread(s.rx, &e, 1, NULL, 10);
        else if (tmode == 1) fi_cq_read(s.rx, &e, 1);
        else wait_one(s.rx, 2, 10);
        fi_cq_read(s.tx, &e, 1);
        struct result one;
        while (read(up[0], &one, sizeof one) == sizeof one) r[one.id] = one, got++;
    }
    progress(100);
    for (int i = 0; i < PEERS; i++) if (write(down[i][1], "q", 1) != 1) { }
    for (int i = 0; i < PEERS; i++) { kill(child[i], SIGKILL); waitpid(child[i], NULL, 0); }
    long total = 0; int late = 0;
    for (int i = 0; i < PEERS; i++) {
        printf("initiator %d: %ld of %ld completed (%ld posted, %ld -FI_EAGAIN, %ld with nothing in flight) %s %ld ms\n",
               i, r[i].done, n, r[i].posted, r[i].eagain, r[i].idle_eagain, r[i].hung ? "HUNG (alarm) after" : r[i].ms < 0 || r[i].done < n ? "gave up after" : "in",
               r[i].hung ? time_ms + 5000 : r[i].ms);
        total += r[i].done;
        if (r[i].done < n) late++;
    }
    printf("target word: %lu (expected %ld; completions counted %ld)\n", (unsigned long) words[0], PEERS * n, total);
    if (getenv("OLD"))
        verdict(1, "OLD=1: %d of %d initiators stalled waiting for a completion after -FI_EAGAIN with nothing in flight "
                "(fi_atomic(3): -FI_EAGAIN means progress and post again, so no completion is owed; the target word "
                "counts %lu)", late, PEERS, (unsigned long) words[0]);
    verdict(late == 0 && words[0] == (uint64_t) (PEERS * n), "%d initiators x %ld FI_SUM on one word: %s", PEERS, n,
            late ? "some initiators stalled" : words[0] == (uint64_t) (PEERS * n) ? "all completed, sum exact"
            : "all completed, sum wrong");
}
