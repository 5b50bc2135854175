/*
 * bench/floors/bridge-calls.c: the calls of bench's BridgeCallBench made from C, so that the two
 * together show what the libfabric bridge adds to each native call.
 *
 *   gcc -O2 -o bench/target/bridge-calls bench/floors/bridge-calls.c -lfabric
 *   bench/target/bridge-calls [iterations]
 *
 * Opens an shm RDM endpoint with the hints fi_pingpong and the benchmark use (FI_MSG, FI_THREAD_SAFE
 * by default), inserts its own address, then times
 *   emptyRead:   fi_cq_read on the idle receive CQ;
 *   selfMessage: fi_recv + fi_inject of 64 bytes to itself + fi_cq_read until the receive completes.
 * Prints ns per operation for each, best of five passes (JMH reports a mean of its iterations, which
 * on an idle machine is within a nanosecond or two of the best pass).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>

#define MSG_SIZE 64
#define PASSES 5

static void check(int rc, const char *what)
{
	if (rc) {
		fprintf(stderr, "bridge-calls: %s: %s\n", what, fi_strerror(-rc));
		exit(1);
	}
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

struct bench {
	struct fid_ep *ep;
	struct fid_cq *txcq, *rxcq;
	fi_addr_t self;
	char *rx, *tx;
};

static struct fid_cq *open_cq(struct fid_domain *dom, size_t size)
{
	struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE, .size = size };
	struct fid_cq *cq;
	check(fi_cq_open(dom, &attr, &cq, NULL), "fi_cq_open");
	return cq;
}

static void open_endpoint(struct bench *b)
{
	struct fi_info *hints = fi_allocinfo(), *fi;
	struct fid_fabric *fabric;
	struct fid_domain *dom;
	struct fid_av *av;
	struct fi_av_attr av_attr = { .type = FI_AV_UNSPEC };
	char name[256];
	size_t len = sizeof(name);

	hints->caps = FI_MSG;
	hints->ep_attr->type = FI_EP_RDM;
	hints->mode = FI_CONTEXT | FI_CONTEXT2;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_VIRT_ADDR;
	hints->fabric_attr->prov_name = strdup("shm");
	check(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &fi), "fi_getinfo");
	check(fi_fabric(fi->fabric_attr, &fabric, NULL), "fi_fabric");
	check(fi_domain(fabric, fi, &dom, NULL), "fi_domain");
	b->txcq = open_cq(dom, fi->tx_attr->size);
	b->rxcq = open_cq(dom, fi->rx_attr->size);
	check(fi_av_open(dom, &av_attr, &av, NULL), "fi_av_open");
	check(fi_endpoint(dom, fi, &b->ep, NULL), "fi_endpoint");
	check(fi_ep_bind(b->ep, &av->fid, 0), "fi_ep_bind(av)");
	check(fi_ep_bind(b->ep, &b->txcq->fid, FI_TRANSMIT), "fi_ep_bind(tx cq)");
	check(fi_ep_bind(b->ep, &b->rxcq->fid, FI_RECV), "fi_ep_bind(rx cq)");
	check(fi_enable(b->ep), "fi_enable");
	check(fi_getname(&b->ep->fid, name, &len), "fi_getname");
	if (fi_av_insert(av, name, 1, &b->self, 0, NULL) != 1)
		check(-FI_EINVAL, "fi_av_insert");
	b->rx = aligned_alloc(4096, 8192);
	b->tx = b->rx + 4096;
	fi_freeinfo(hints);
}

static void self_message(struct bench *b)
{
	static struct fi_context2 ctx;
	struct fi_cq_entry e;
	ssize_t rc;

	check((int) fi_recv(b->ep, b->rx, MSG_SIZE, NULL, FI_ADDR_UNSPEC, &ctx), "fi_recv");
	while ((rc = fi_inject(b->ep, b->tx, MSG_SIZE, b->self)) == -FI_EAGAIN)
		fi_cq_read(b->txcq, &e, 1);
	check((int) rc, "fi_inject");
	do {
		rc = fi_cq_read(b->rxcq, &e, 1);
	} while (rc == -FI_EAGAIN);
	if (rc != 1 || e.op_context != &ctx)
		check(rc < 0 ? (int) rc : -FI_EOTHER, "fi_cq_read");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5000000;
	struct bench b;
	struct fi_cq_entry e;
	double best_self = 1e18, best_empty = 1e18;

	open_endpoint(&b);
	for (int pass = 0; pass < PASSES; pass++) {
		double t0 = now_ns();
		for (long i = 0; i < n; i++)
			self_message(&b);
		double t1 = now_ns();
		for (long i = 0; i < n; i++)
			if (fi_cq_read(b.rxcq, &e, 1) != -FI_EAGAIN)
				check(-FI_EOTHER, "an idle CQ returned an entry");
		double t2 = now_ns();
		if ((t1 - t0) / n < best_self)
			best_self = (t1 - t0) / n;
		if ((t2 - t1) / n < best_empty)
			best_empty = (t2 - t1) / n;
	}
	printf("emptyRead   %.1f ns/op\nselfMessage %.1f ns/op\n", best_empty, best_self);
	return 0;
}
