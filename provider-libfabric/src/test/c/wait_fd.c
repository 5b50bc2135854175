// fi_cq(3), fi_trywait(3): a CQ opened with FI_WAIT_FD gives a descriptor through fi_control(FI_GETWAIT); after
// fi_trywait returns 0 a poll(2) on it sleeps until there is something to read. Checks, for the receive CQ of an
// endpoint pair: which of CQ, EQ and counter open with FI_WAIT_FD and give an fd; idle, fi_trywait is 0 and poll
// sleeps its 300 ms; a message sent from another thread is read within 2 s by a loop of fi_trywait, poll and read
// (the fd may wake for activity that is not yet a completion: rxm's connection set-up), after at most a few
// wakes (rxm's fi_trywait answers -FI_EAGAIN, with nothing to read, thousands of times while the connection
// forms: printed, not judged); then everything closes. What the libfabric provider's wait-set members rely on.
// Exit 3: the CQ has no FI_WAIT_FD descriptor.
#include "repro.h"
#include <poll.h>
#include <pthread.h>

static char sbuf[64] = "wake", rbuf[64];

static void *sender(void *arg) {
    (void) arg;
    usleep(200 * 1000);
    POST(fi_send(end_a->ep, sbuf, sizeof sbuf, NULL, end_a->peer, NULL));
    struct fi_cq_tagged_entry e;
    long end = now_ms() + 5000;
    while (fi_cq_read(end_a->tx, &e, 1) != 1 && now_ms() < end) fi_cq_read(end_a->rx, NULL, 0);
    return NULL;
}

static int getwait(struct fid *f) {
    int fd = -1;
    int rc = fi_control(f, FI_GETWAIT, &fd);
    return rc ? rc : fd;
}

// Opens a CQ, an EQ and a counter with FI_WAIT_FD on a fresh fabric and domain; prints what each gives.
static int probe(const char *prov, enum fi_ep_type type) {
    struct end s; memset(&s, 0, sizeof s);
    info = get_info(prov, type, FI_MSG);
    CHECK(fi_fabric(info->fabric_attr, &s.fabric, NULL));
    CHECK(fi_domain(s.fabric, info, &s.domain, NULL));
    struct fid_cq *cq; struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED, .size = 64, .wait_obj = FI_WAIT_FD };
    int cqrc = fi_cq_open(s.domain, &cqa, &cq, NULL);
    struct fid_eq *eq; struct fi_eq_attr qa = { .size = 16, .wait_obj = FI_WAIT_FD };
    int eqrc = fi_eq_open(s.fabric, &qa, &eq, NULL);
    struct fid_cntr *c; struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_FD };
    int crc = fi_cntr_open(s.domain, &ca, &c, NULL);
    int cqfd = cqrc ? cqrc : getwait(&cq->fid);
    printf("FI_WAIT_FD: CQ open %d fd %d, EQ open %d fd %d, counter open %d fd %d\n", cqrc, cqfd,
           eqrc, eqrc ? eqrc : getwait(&eq->fid), crc, crc ? crc : getwait(&c->fid));
    if (!cqrc) fi_close(&cq->fid);
    if (!eqrc) fi_close(&eq->fid);
    if (!crc) fi_close(&c->fid);
    fi_close(&s.domain->fid); fi_close(&s.fabric->fid); fi_freeinfo(info);
    return cqfd;
}

int main(int argc, char **argv) {
    usage_if(argc, argv);
    prov_name = argv[1];
    enum fi_ep_type type = type_arg(argc, argv, FI_EP_RDM);
    if (probe(argv[1], type) < 0) {
        printf("NO FD [%s]: the CQ gives no FI_WAIT_FD descriptor\n", prov_name);
        return 3;
    }
    cq_wait_obj = FI_WAIT_FD;
    struct end a, b;
    open_pair(argv[1], type, FI_MSG, &a, &b);
    int fd = getwait(&b.rx->fid);
    POST(fi_recv(b.ep, rbuf, sizeof rbuf, NULL, b.peer, NULL));
    struct fid *fids[1] = { &b.rx->fid };
    int tw = fi_trywait(b.fabric, fids, 1);
    struct pollfd p = { .fd = fd, .events = POLLIN };
    long t0 = now_ms();
    int idle = poll(&p, 1, 300);
    long idleMs = now_ms() - t0;
    printf("idle: fi_trywait %d, poll %d after %ld ms\n", tw, idle, idleMs);
    pthread_t t; pthread_create(&t, NULL, sender, NULL);
    struct fi_cq_tagged_entry e;
    ssize_t n = 0;
    int wakes = 0, eagain = 0;
    t0 = now_ms();
    while (n != 1 && now_ms() - t0 < 2000) {
        if (fi_trywait(b.fabric, fids, 1) == -FI_EAGAIN) {
            eagain++;
        } else if (poll(&p, 1, 2000) == 1) {
            wakes++;
        }
        n = fi_cq_read(b.rx, &e, 1);
    }
    long readMs = now_ms() - t0;
    int afterRead = fi_trywait(b.fabric, fids, 1);
    printf("message: read %zd after %ld ms, %d wakes, %d trywait EAGAIN; trywait after the read %d\n", n, readMs,
           wakes, eagain, afterRead);
    pthread_join(t, NULL);
    // the CQs, EQs and their wait objects close in the usual order
    struct end *ends[2] = { &b, &a };
    int closed = 0;
    for (int i = 0; i < 2; i++) {
        closed |= fi_close(&ends[i]->ep->fid);
        if (ends[i]->pep) closed |= fi_close(&ends[i]->pep->fid);
        if (ends[i]->av) closed |= fi_close(&ends[i]->av->fid);
        closed |= fi_close(&ends[i]->rx->fid) | fi_close(&ends[i]->tx->fid) | fi_close(&ends[i]->domain->fid);
        closed |= fi_close(&ends[i]->eq->fid) | fi_close(&ends[i]->fabric->fid);
    }
    verdict(tw == 0 && idle == 0 && idleMs >= 250 && n == 1 && readMs < 1500 && wakes < 50 && afterRead == 0
            && closed == 0, "FI_WAIT_FD CQ: idle poll sleeps, a message wakes it within %ld ms", readMs);
}
