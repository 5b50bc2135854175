// Shared set-up for the native libfabric 1.17 reproducers in this directory (no jfabric involved): two
// endpoints of one provider in one process on loopback, their CQs, and a PASS/DEVIATION verdict.
// Usage of every reproducer: ./<name> <provider> [msg|rdm], e.g. ./av_lookup_unknown 'tcp;ofi_rxm'.
#ifndef REPRO_H
#define REPRO_H
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <rdma/fi_errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK(x) do { long _r = (long) (x); if (_r < 0) { \
    printf("SETUP FAILED: %s = %ld (%s)\n", #x, _r, fi_strerror((int) -_r)); exit(2); } } while (0)

struct end {
    struct fid_fabric *fabric; struct fid_domain *domain; struct fid_ep *ep; struct fid_pep *pep;
    struct fid_cq *tx, *rx; struct fid_av *av; struct fid_eq *eq; fi_addr_t peer;
};

__attribute__((unused)) static struct fi_info *info;
static const char *prov_name;
// The wait object open_common gives the CQs (wait_fd.c sets FI_WAIT_FD); FI_WAIT_NONE for the others.
__attribute__((unused)) static enum fi_wait_obj cq_wait_obj = FI_WAIT_NONE;
// Extra flags for the transmit CQ's binding (FI_SELECTIVE_COMPLETION), set by a reproducer before open_pair.
__attribute__((unused)) static uint64_t tx_bind_flags = 0;
__attribute__((unused)) static struct end *end_a, *end_b;
// Extra bindings (counters) of an endpoint before it is enabled, set by a reproducer before open_pair.
__attribute__((unused)) static void (*before_enable)(struct end *s) = NULL;

__attribute__((unused)) static long now_ms(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

// Prints the verdict line and exits: 0 for PASS, 1 for DEVIATION (libfabric disagrees with its man page).
__attribute__((unused)) static void verdict(int pass, const char *fmt, ...) {
    va_list ap; va_start(ap, fmt);
    printf("%s [%s]: ", pass ? "PASS" : "DEVIATION", prov_name);
    vprintf(fmt, ap); printf("\n"); va_end(ap);
    exit(pass ? 0 : 1);
}

__attribute__((unused)) static void on_alarm_exit(int sig) { (void) sig; printf("DEVIATION [%s]: hung (alarm)\n", prov_name); _exit(1); }

// Progress for providers with manual progress: a zero-count read of every CQ takes no completion.
__attribute__((unused)) static void drive(void) {
    struct end *e[2] = { end_a, end_b };
    for (int i = 0; i < 2; i++) if (e[i]) { fi_cq_read(e[i]->tx, NULL, 0); fi_cq_read(e[i]->rx, NULL, 0); }
}

// Posts an operation, retrying -FI_EAGAIN with progress for up to 5 s; exits on any other error.
#define POST(x) do { long _end = now_ms() + 5000; long _r; \
    while ((_r = (long) (x)) == -FI_EAGAIN && now_ms() < _end) { drive(); } \
    CHECK(_r); } while (0)

// Reads one CQ entry within ms: 1 for a success (into *e), -err for an error completion (into *ee), 0 on timeout.
__attribute__((unused)) static int cq_wait(struct fid_cq *cq, struct fi_cq_tagged_entry *e, struct fi_cq_err_entry *ee, long ms) {
    struct fi_cq_tagged_entry scratch; struct fi_cq_err_entry escratch;
    if (!e) e = &scratch;
    if (!ee) ee = &escratch;
    long end = now_ms() + ms;
    do {
        ssize_t n = fi_cq_read(cq, e, 1);
        if (n == 1) return 1;
        if (n == -FI_EAVAIL) { memset(ee, 0, sizeof *ee); fi_cq_readerr(cq, ee, 0); return -(ee->err ? abs(ee->err) : 1); }
        drive();
    } while (now_ms() < end);
    return 0;
}

// Gives ms of progress without taking any completion.
__attribute__((unused)) static void progress(long ms) {
    long end = now_ms() + ms;
    while (now_ms() < end) { drive(); usleep(200); }
}

// fi_tagged(3) FI_PEEK|FI_CLAIM then FI_CLAIM: peeks for m's tag (retrying FI_ENOMSG for up to find_ms), runs
// gap_ms of progress, then claims the message into m's buffer with the same context. Prints both answers. *found
// is the peek's answer (1 found, 0 none, -err); returns the claim's (1 completed into *got, 0 none in 3 s, -err,
// with the error entry's len in got->len).
__attribute__((unused)) static int peek_then_claim(struct fid_ep *ep, struct fid_cq *rx, struct fi_msg_tagged *m,
                                                   long find_ms, long gap_ms, struct fi_cq_tagged_entry *got, int *found) {
    struct fi_cq_tagged_entry peeked = {0};
    struct fi_cq_err_entry ee;
    int rc = 0;
    for (long end = now_ms() + find_ms; now_ms() < end && rc != 1;) {
        POST(fi_trecvmsg(ep, m, FI_PEEK | FI_CLAIM));
        rc = cq_wait(rx, &peeked, &ee, 1000);
    }
    *found = rc;
    printf("FI_PEEK|FI_CLAIM: %s (len %zu)\n", rc == 1 ? "found the message" : rc == 0 ? "no answer" : fi_strerror(-rc),
           rc == 1 ? peeked.len : 0);
    if (rc != 1) return 0;
    if (gap_ms > 0) progress(gap_ms);
    POST(fi_trecvmsg(ep, m, FI_CLAIM));
    memset(&ee, 0, sizeof ee);
    int claimed = cq_wait(rx, got, &ee, 3000);
    if (claimed < 0) got->len = ee.len;
    printf("FI_CLAIM receive: %s (len %zu)\n", claimed == 1 ? "completed" : claimed == 0 ? "no completion in 3 s"
           : fi_strerror(-claimed), claimed == 0 ? 0 : got->len);
    return claimed;
}

__attribute__((unused)) static struct fi_info *get_info(const char *prov, enum fi_ep_type type, uint64_t caps) {
    struct fi_info *hints = fi_allocinfo(), *out = NULL;
    hints->ep_attr->type = type;
    hints->caps = caps;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->fabric_attr->prov_name = strdup(prov);
    // DC=1: sends complete only once the target has processed them (FI_DELIVERY_COMPLETE, which a null-hints info
    // of some providers carries in its default tx op_flags, as the libfabric provider's conformance cases use it)
    if (getenv("DC")) hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    // OPCOMP=1: FI_COMPLETION in the default tx op_flags too (jfabric bw --rate --more sets it, so that its plain
    // sends still complete on a FI_SELECTIVE_COMPLETION transmit CQ)
    if (getenv("OPCOMP")) hints->tx_attr->op_flags |= FI_COMPLETION;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    // loopback only: MSG endpoints listen on 127.0.0.1
    if (type == FI_EP_MSG) CHECK(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", "0", FI_SOURCE, hints, &out));
    else CHECK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &out));
    fi_freeinfo(hints);
    return out;
}

__attribute__((unused)) static void open_common(struct end *s) {
    CHECK(fi_fabric(info->fabric_attr, &s->fabric, NULL));
    struct fi_eq_attr qa = { .size = 64, .wait_obj = FI_WAIT_UNSPEC };
    CHECK(fi_eq_open(s->fabric, &qa, &s->eq, NULL));
    CHECK(fi_domain(s->fabric, info, &s->domain, NULL));
    struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_TAGGED, .size = getenv("CQSIZE") ? atoi(getenv("CQSIZE")) : 4096,
                               .wait_obj = cq_wait_obj };
    CHECK(fi_cq_open(s->domain, &ca, &s->tx, NULL));
    CHECK(fi_cq_open(s->domain, &ca, &s->rx, NULL));
}

// One fabric, EQ, domain and CQ pair of an RDM FI_MSG info of prov, bounded by the 10 s alarm (no endpoint).
__attribute__((unused)) static void open_one(const char *prov, struct end *s) {
    prov_name = prov;
    signal(SIGALRM, on_alarm_exit);
    alarm(10);
    info = get_info(prov, FI_EP_RDM, FI_MSG);
    memset(s, 0, sizeof *s);
    open_common(s);
}

__attribute__((unused)) static void bind_cqs(struct end *s, struct fi_info *fi) {
    CHECK(fi_endpoint(s->domain, fi, &s->ep, NULL));
    if (s->av) CHECK(fi_ep_bind(s->ep, &s->av->fid, 0));
    else CHECK(fi_ep_bind(s->ep, &s->eq->fid, 0));
    CHECK(fi_ep_bind(s->ep, &s->tx->fid, FI_TRANSMIT | tx_bind_flags));
    CHECK(fi_ep_bind(s->ep, &s->rx->fid, FI_RECV));
    if (before_enable) before_enable(s);
    CHECK(fi_enable(s->ep));
}

__attribute__((unused)) static void wait_event(struct fid_eq *eq, struct fid_eq *other, uint32_t want) {
    uint32_t ev; struct fi_eq_cm_entry cm; long end = now_ms() + 5000;
    for (;;) {
        uint32_t pev; struct fi_eq_cm_entry pcm;
        fi_eq_read(other, &pev, &pcm, sizeof pcm, FI_PEEK);
        ssize_t n = fi_eq_read(eq, &ev, &cm, sizeof cm, 0);
        if (n > 0 && ev == want) return;
        if (n == -FI_EAVAIL) { struct fi_eq_err_entry err = {0}; fi_eq_readerr(eq, &err, 0);
            printf("SETUP FAILED: EQ error %d\n", err.err); exit(2); }
        if (now_ms() > end) { printf("SETUP FAILED: EQ event %u never came\n", want); exit(2); }
    }
}

// Opens two endpoints that reach each other: RDM (AV entries both ways) or MSG (connected through a pep).
__attribute__((unused)) static void open_pair(const char *prov, enum fi_ep_type type, uint64_t caps, struct end *a, struct end *b) {
    prov_name = prov;
    signal(SIGALRM, on_alarm_exit);
    alarm(10);
    info = get_info(prov, type, caps);
    memset(a, 0, sizeof *a); memset(b, 0, sizeof *b);
    end_a = a; end_b = b;
    open_common(a); open_common(b);
    if (type == FI_EP_RDM) {
        struct fi_av_attr aa = { .type = FI_AV_TABLE };
        CHECK(fi_av_open(a->domain, &aa, &a->av, NULL));
        CHECK(fi_av_open(b->domain, &aa, &b->av, NULL));
        bind_cqs(a, info); bind_cqs(b, info);
        char name[256]; size_t len = sizeof name;
        CHECK(fi_getname(&b->ep->fid, name, &len));
        if (fi_av_insert(a->av, name, 1, &a->peer, 0, NULL) != 1) { printf("SETUP FAILED: av insert\n"); exit(2); }
        len = sizeof name; CHECK(fi_getname(&a->ep->fid, name, &len));
        if (fi_av_insert(b->av, name, 1, &b->peer, 0, NULL) != 1) { printf("SETUP FAILED: av insert\n"); exit(2); }
        return;
    }
    CHECK(fi_passive_ep(b->fabric, info, &b->pep, NULL));
    CHECK(fi_pep_bind(b->pep, &b->eq->fid, 0));
    CHECK(fi_listen(b->pep));
    char name[256]; size_t len = sizeof name;
    CHECK(fi_getname(&b->pep->fid, name, &len));
    struct fi_info *ci = fi_dupinfo(info);
    free(ci->dest_addr); ci->dest_addr = malloc(len); memcpy(ci->dest_addr, name, len); ci->dest_addrlen = len;
    bind_cqs(a, ci);
    CHECK(fi_connect(a->ep, name, NULL, 0));
    uint32_t ev; struct fi_eq_cm_entry cm; long end = now_ms() + 5000;
    ssize_t n;
    while ((n = fi_eq_read(b->eq, &ev, &cm, sizeof cm, 0)) <= 0 || ev != FI_CONNREQ) {
        uint32_t pev; struct fi_eq_cm_entry pcm;
        fi_eq_read(a->eq, &pev, &pcm, sizeof pcm, FI_PEEK); // drives the connecting side's progress
        if (n == -FI_EAVAIL) { struct fi_eq_err_entry err = {0}; fi_eq_readerr(b->eq, &err, 0); printf("pep EQ error %d\n", err.err); }
        if (now_ms() > end) { printf("SETUP FAILED: no FI_CONNREQ\n"); exit(2); }
    }
    bind_cqs(b, cm.info);
    CHECK(fi_accept(b->ep, NULL, 0));
    wait_event(a->eq, b->eq, FI_CONNECTED);
    wait_event(b->eq, a->eq, FI_CONNECTED);
}

// Registers buf for access; FI_MR_PROV_KEY providers choose the key, the others get requested_key.
__attribute__((unused)) static struct fid_mr *reg(struct end *s, void *buf, size_t len, uint64_t access,
                                                  uint64_t requested_key) {
    struct fid_mr *mr;
    CHECK(fi_mr_reg(s->domain, buf, len, access, 0, requested_key, 0, &mr, NULL));
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) { CHECK(fi_mr_bind(mr, &s->ep->fid, 0)); CHECK(fi_mr_enable(mr)); }
    return mr;
}

// The target address of an RMA into buf registered by mr: its virtual address or the offset 0.
__attribute__((unused)) static uint64_t rma_addr(void *buf) {
    return (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t) (uintptr_t) buf : 0;
}

__attribute__((unused)) static enum fi_ep_type type_arg(int argc, char **argv, enum fi_ep_type dflt) {
    if (argc > 2) return strcmp(argv[2], "msg") == 0 ? FI_EP_MSG : FI_EP_RDM;
    return dflt;
}

__attribute__((unused)) static void usage_if(int argc, char **argv) {
    if (argc < 2) { printf("usage: %s <provider, e.g. 'tcp;ofi_rxm' shm 'udp;ofi_rxd' tcp> [msg|rdm]\n", argv[0]); exit(2); }
    setvbuf(stdout, NULL, _IONBF, 0);
}
#endif
