/*
 * bench/floors/shm-ladder.c: the C rungs of bench/shm-ladder, which splits what jfabric's pingpong over
 * libfabric:shm adds to C fi_pingpong into its layers.
 *
 *   gcc -O2 -DMAIN -o bench/target/shm-ladder bench/floors/shm-ladder.c -lfabric          (a process)
 *   gcc -O2 -shared -fPIC -o bench/target/libshm-ladder.so bench/floors/shm-ladder.c -lfabric  (for a JVM)
 *   bench/target/shm-ladder server|client <rendezvous dir> <iterations>
 *
 * One side opens an shm RDM endpoint (FI_MSG, the provider's default threading, a CONTEXT CQ without a
 * wait object, as fi_pingpong does), writes its name to <dir>/<side>.addr and inserts the other side's.
 * Each round trip is fi_inject of 64 bytes, fi_cq_read until the receive completes, and fi_recv of the
 * next: fi_pingpong's calls at 64 B. Prints the one-way time in microseconds (round trip / 2), after
 * 100,000 round trips of warm-up.
 *
 * The library form lets a JVM run the same C loop (ladder_loop), or make the same three calls itself
 * through FFM downcalls (ladder_function and ladder_word give it the ops-table entries and arguments).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>

#define MSG_SIZE 64
#define WARMUP 100000L

static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_av *av;
static struct fid_cq *txcq, *rxcq;
static struct fid_ep *ep;
static fi_addr_t peer;
static struct fi_context2 rx_context;
static struct fi_cq_entry entry;
static char rx_buf[MSG_SIZE] __attribute__((aligned(64)));
static char tx_buf[MSG_SIZE] __attribute__((aligned(64)));

static int fail(int rc, const char *what)
{
	fprintf(stderr, "shm-ladder: %s: %s\n", what, fi_strerror(rc < 0 ? -rc : rc));
	return rc < 0 ? rc : -rc;
}

static struct fid_cq *open_cq(size_t size)
{
	struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE, .size = size };
	struct fid_cq *cq = NULL;
	return fi_cq_open(domain, &attr, &cq, NULL) ? NULL : cq;
}

static int post_recv(void)
{
	ssize_t rc;
	while ((rc = fi_recv(ep, rx_buf, MSG_SIZE, NULL, FI_ADDR_UNSPEC, &rx_context)) == -FI_EAGAIN)
		;
	return (int) rc;
}

static int await_recv(void)
{
	ssize_t rc;
	while ((rc = fi_cq_read(rxcq, &entry, 1)) == -FI_EAGAIN)
		;
	return rc == 1 ? 0 : (int) rc;
}

static int send_one(void)
{
	ssize_t rc;
	while ((rc = fi_inject(ep, tx_buf, MSG_SIZE, peer)) == -FI_EAGAIN)
		;
	return (int) rc;
}

/* Writes this side's name where the other side looks, then waits up to 30 s for the other's. */
static int exchange_names(int server, const char *dir)
{
	char name[256], other[256], path[4000], tmp[4100], theirs[4000];
	size_t len = sizeof name;
	int rc = fi_getname(&ep->fid, name, &len);
	if (rc)
		return fail(rc, "fi_getname");
	snprintf(path, sizeof path, "%s/%s.addr", dir, server ? "server" : "client");
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	snprintf(theirs, sizeof theirs, "%s/%s.addr", dir, server ? "client" : "server");
	FILE *f = fopen(tmp, "w");
	if (!f || fwrite(name, 1, len, f) != len || fclose(f) || rename(tmp, path))
		return fail(FI_EIO, path);
	size_t got = 0;
	for (int waited = 0; got == 0; waited++) {
		if (waited == 30000)
			return fail(FI_ETIMEDOUT, theirs);
		f = fopen(theirs, "r");
		if (f) {
			got = fread(other, 1, sizeof other, f);
			fclose(f);
		}
		if (got == 0)
			usleep(1000);
	}
	if (fi_av_insert(av, other, 1, &peer, 0, NULL) != 1)
		return fail(FI_EINVAL, "fi_av_insert");
	return 0;
}

/* Opens the endpoint, meets the other side and posts the first receive; 0 or a negative fi_errno. */
int ladder_open(int server, const char *dir)
{
	struct fi_info *hints = fi_allocinfo(), *info = NULL;
	int rc;
	if (!hints)
		return fail(FI_ENOMEM, "fi_allocinfo");
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG;
	hints->mode = FI_CONTEXT | FI_CONTEXT2;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_VIRT_ADDR;
	hints->fabric_attr->prov_name = strdup("shm");
	rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info);
	fi_freeinfo(hints);
	if (rc)
		return fail(rc, "fi_getinfo");
	struct fi_av_attr av_attr = { .type = info->domain_attr->av_type };
	if ((rc = fi_fabric(info->fabric_attr, &fabric, NULL)) || (rc = fi_domain(fabric, info, &domain, NULL)))
		return fail(rc, "fi_fabric/fi_domain");
	txcq = open_cq(info->tx_attr->size);
	rxcq = open_cq(info->rx_attr->size);
	if (!txcq || !rxcq)
		return fail(FI_ENOMEM, "fi_cq_open");
	if ((rc = fi_av_open(domain, &av_attr, &av, NULL)) || (rc = fi_endpoint(domain, info, &ep, NULL)) ||
	    (rc = fi_ep_bind(ep, &av->fid, 0)) || (rc = fi_ep_bind(ep, &txcq->fid, FI_TRANSMIT)) ||
	    (rc = fi_ep_bind(ep, &rxcq->fid, FI_RECV)) || (rc = fi_enable(ep)))
		return fail(rc, "opening the endpoint");
	fi_freeinfo(info);
	if ((rc = exchange_names(server, dir)))
		return rc;
	if ((rc = post_recv()))
		return fail(rc, "fi_recv");
	sleep(1); /* the other side has posted its first receive too */
	return 0;
}

/* The C loop: the one-way time in microseconds over `iterations` round trips, or a negative fi_errno. */
double ladder_loop(int server, long iterations)
{
	struct timespec t0 = { 0 }, t1;
	int rc = 0;
	for (long i = 0; i < WARMUP + iterations && !rc; i++) {
		if (i == WARMUP)
			clock_gettime(CLOCK_MONOTONIC, &t0);
		if (server) {
			if (!(rc = await_recv()) && !(rc = post_recv()))
				rc = send_one();
		} else {
			if (!(rc = send_one()) && !(rc = await_recv()))
				rc = post_recv();
		}
	}
	if (rc)
		return fail(rc, "round trip");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / iterations / 2 / 1000;
}

/* For a caller making the calls itself: 0 fi_recv, 1 fi_inject, 2 fi_cq_read (ops-table entries). */
void *ladder_function(int which)
{
	switch (which) {
	case 0: return (void *) ep->msg->recv;
	case 1: return (void *) ep->msg->inject;
	default: return (void *) rxcq->ops->read;
	}
}

/* Their arguments: 0 ep, 1 rx CQ, 2 peer, 3 rx buffer, 4 tx buffer, 5 rx context, 6 CQ entry. */
long ladder_word(int which)
{
	switch (which) {
	case 0: return (long) ep;
	case 1: return (long) rxcq;
	case 2: return (long) peer;
	case 3: return (long) rx_buf;
	case 4: return (long) tx_buf;
	case 5: return (long) &rx_context;
	default: return (long) &entry;
	}
}

void ladder_close(void)
{
	fi_close(&ep->fid);
	fi_close(&av->fid);
	fi_close(&rxcq->fid);
	fi_close(&txcq->fid);
	fi_close(&domain->fid);
	fi_close(&fabric->fid);
}

#ifdef MAIN
int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: shm-ladder server|client <rendezvous dir> <iterations>\n");
		return 2;
	}
	int server = !strcmp(argv[1], "server");
	if (ladder_open(server, argv[2]))
		return 1;
	double us = ladder_loop(server, atol(argv[3]));
	ladder_close();
	if (us < 0)
		return 1;
	printf("%.3f\n", us);
	return 0;
}
#endif
