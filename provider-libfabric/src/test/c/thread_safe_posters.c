// ThreadSafeDataPathTest.fourPostersAndOneCqReaderLoseAndDuplicateNothing in C. FI_THREAD_SAFE (fi_domain(3)):
// four threads post 500 sends of 8 bytes each on one endpoint (retrying -FI_EAGAIN, as fi_msg(3) allows), a fifth
// thread reads its transmit CQ, and the main thread receives: 256 receives of 8 bytes posted, each reposted on
// its completion until 2000 are posted, progress while a repost answers -FI_EAGAIN (a zero-count read of every
// CQ), as the test's Poller does. CQs of 1024 entries, as the test opens them (tx_size and rx_size of
// udp;ofi_rxd). PASS when every send completes once and every message arrives once within TIME seconds (20).
// ST=1: the same counts from one thread (post a send, read the transmit CQ, read the receive CQ, in turn), to
// separate threading from counts; ST=2: the same, but each turn posts sends until -FI_EAGAIN or all are posted.
// libfabric 1.17's udp;ofi_rxd (tx_size 1024): fi_send answers 0 to all 2000 and never -FI_EAGAIN, but once
// tx_size sends are outstanding it drops the next ones (FI_LOG_LEVEL=warn: one "could not get tx entry" per
// dropped send): 1024 complete and arrive (more when completions freed tx entries while the posters ran), the
// others never do, with four posters and with ST=2 alike (ST=1, one send outstanding at a time, passes).
// prov/rxd/src/rxd_msg.c rxd_ep_generic_sendmsg returns the 0 of rxd_send_rts_if_needed when
// rxd_tx_entry_init_msg finds no tx entry; fi_msg(3): 0 is success, a lack of resources -FI_EAGAIN.
#include "repro.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#define POSTERS 4
#define MESSAGES 500
#define TOTAL (POSTERS * MESSAGES)
#define DEPTH 256

static struct end a, b;
static uint64_t out[TOTAL], in[DEPTH];
static void *out_desc, *in_desc;
static int send_ctx[TOTAL], recv_ctx[DEPTH];   // op_context: the address of the send's or the slot's number
static unsigned char send_seen[TOTAL], recv_seen[TOTAL];
static atomic_int posted, send_eagain, sends_done, stop, failed;
static long deadline;

static void *poster(void *arg) {
    int p = (int) (intptr_t) arg;
    for (int m = 0; m < MESSAGES && !stop; m++) {
        int i = p * MESSAGES + m; ssize_t rc;
        while ((rc = fi_send(a.ep, &out[i], 8, out_desc, a.peer, &send_ctx[i])) == -FI_EAGAIN
               && now_ms() < deadline && !stop) {
            send_eagain++;
            sched_yield(); // the reader thread makes room
        }
        if (rc) { printf("poster %d message %d: fi_send %zd (%s)\n", p, m, rc, fi_strerror((int) -rc)); failed = 1; return NULL; }
        posted++;
    }
    return NULL;
}

// Counts one send completion; 0, or -1 for a context that is none of ours or a second completion.
static int send_completed(void *ctx) {
    int *c = ctx;
    if (c < send_ctx || c >= send_ctx + TOTAL) { printf("send completion with op_context %p\n", ctx); return -1; }
    if (send_seen[*c]++) { printf("send %d completed twice\n", *c); return -1; }
    sends_done++;
    return 0;
}

static void *tx_reader(void *arg) {
    (void) arg;
    struct fi_cq_tagged_entry e[16];
    while (sends_done < TOTAL && !stop && now_ms() < deadline) {
        ssize_t n = fi_cq_read(a.tx, e, 16);
        if (n == -FI_EAVAIL) { struct fi_cq_err_entry ee = {0}; fi_cq_readerr(a.tx, &ee, 0);
            printf("send failed: %s\n", fi_strerror(ee.err)); failed = 1; return NULL; }
        for (ssize_t k = 0; k < n; k++) if (send_completed(e[k].op_context)) { failed = 1; return NULL; }
    }
    return NULL;
}

// Posts (or reposts) receive slot s, retrying -FI_EAGAIN with progress on every CQ, as the test's Poller.post.
static void post_recv(int s) {
    POST(fi_recv(b.ep, &in[s], 8, in_desc, b.peer, &recv_ctx[s]));
}

// Takes one receive completion if there is one: 1 taken, 0 none, -1 failure.
static int take_recv(int *received) {
    struct fi_cq_tagged_entry e;
    ssize_t n = fi_cq_read(b.rx, &e, 1);
    if (n == -FI_EAGAIN) return 0;
    if (n != 1) { struct fi_cq_err_entry ee = {0}; fi_cq_readerr(b.rx, &ee, 0);
        printf("receive failed: %zd %s\n", n, fi_strerror(ee.err)); return -1; }
    int s = *(int *) e.op_context;
    uint64_t v = in[s];
    uint32_t p = (uint32_t) (v >> 32), m = (uint32_t) v;
    if (p >= POSTERS || m >= MESSAGES) { printf("received a message never sent: %#lx\n", (unsigned long) v); return -1; }
    if (recv_seen[p * MESSAGES + m]++) { printf("message %u of poster %u arrived twice\n", m, p); return -1; }
    ++*received;
    if (*received + DEPTH <= TOTAL) post_recv(s);
    return 1;
}

int main(int argc, char **argv) {
    usage_if(argc, argv);
    setenv("CQSIZE", "1024", 0); // the test's CQs: the endpoint's tx_size / rx_size (1024 on rxd)
    open_pair(argv[1], type_arg(argc, argv, FI_EP_RDM), FI_MSG, &a, &b);
    long secs = getenv("TIME") ? atol(getenv("TIME")) : 20;
    int single = getenv("ST") ? atoi(getenv("ST")) : 0;
    alarm(secs + 10);
    printf("threading %s, tx_size %zu, rx_size %zu, %s\n", fi_tostr(&info->domain_attr->threading, FI_TYPE_THREADING),
           info->tx_attr->size, info->rx_attr->size, single ? (single > 1 ? "one thread, sends posted in bursts (ST=2)" : "one thread (ST=1)") : "4 posters, 1 tx CQ reader, main receives");
    struct fid_mr *omr = NULL, *imr = NULL;
    if (info->domain_attr->mr_mode & FI_MR_LOCAL) {
        omr = reg(&a, out, sizeof out, FI_SEND, 1); imr = reg(&b, in, sizeof in, FI_RECV, 2);
        out_desc = fi_mr_desc(omr); in_desc = fi_mr_desc(imr);
    }
    for (int i = 0; i < TOTAL; i++) { send_ctx[i] = i; out[i] = (uint64_t) (i / MESSAGES) << 32 | (i % MESSAGES); }
    for (int s = 0; s < DEPTH; s++) { recv_ctx[s] = s; post_recv(s); }
    deadline = now_ms() + secs * 1000;
    int received = 0;
    long t0 = now_ms(), last_change = t0; int last_state = -1;
    if (single) {
        int next = 0;
        struct fi_cq_tagged_entry e[16];
        while ((received < TOTAL || sends_done < TOTAL) && !failed && now_ms() < deadline) {
            // post sends until -FI_EAGAIN or all are posted (ST=1 posts one per turn), as fast as four posters
            for (int burst = 0; next < TOTAL && (single > 1 || burst < 1); burst++) {
                ssize_t rc = fi_send(a.ep, &out[next], 8, out_desc, a.peer, &send_ctx[next]);
                if (rc == 0) { next++; posted++; continue; }
                if (rc == -FI_EAGAIN) send_eagain++;
                else { printf("fi_send %zd (%s)\n", rc, fi_strerror((int) -rc)); failed = 1; }
                break;
            }
            ssize_t n = fi_cq_read(a.tx, e, 16);
            if (n == -FI_EAVAIL) { printf("send failed\n"); failed = 1; }
            for (ssize_t k = 0; k < n; k++) if (send_completed(e[k].op_context)) failed = 1;
            if (take_recv(&received) < 0) failed = 1;
        }
    } else {
        pthread_t t[POSTERS], r;
        for (int p = 0; p < POSTERS; p++) pthread_create(&t[p], NULL, poster, (void *) (intptr_t) p);
        pthread_create(&r, NULL, tx_reader, NULL);
        while (received < TOTAL && !failed && now_ms() < deadline) {
            int rc = take_recv(&received);
            if (rc < 0) failed = 1;
            int state = received * 4096 + sends_done;
            if (state != last_state) { last_state = state; last_change = now_ms(); }
        }
        if (received < TOTAL) stop = 1;
        for (int p = 0; p < POSTERS; p++) pthread_join(t[p], NULL);
        pthread_join(r, NULL);
    }
    if (single) last_change = now_ms();
    printf("after %ld ms: %d sends posted (%d -FI_EAGAIN answers), %d completed at the sender, %d received%s\n",
           now_ms() - t0, (int) posted, (int) send_eagain, (int) sends_done, received,
           received < TOTAL && !single ? "" : "");
    if (!single && received < TOTAL)
        printf("nothing changed for the last %ld ms\n", now_ms() - last_change);
    verdict(!failed && received == TOTAL && sends_done == TOTAL,
            "%d of %d sends completed, %d of %d messages received", (int) sends_done, TOTAL, received, TOTAL);
}
