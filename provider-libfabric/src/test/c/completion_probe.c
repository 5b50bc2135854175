// Completion probe for native libfabric (no jfabric involved), used to decide whether a conformance
// failure of a libfabric: configuration is libfabric's own. Two RDM endpoints in one process; two receives, two
// sends; prints each completion's op_context. Build: gcc -O1 -o probe completion_probe.c -lfabric
// Run: ./probe <prov> <size1> <size2> [selective]; env CAPS=<hex caps>, EXACT=1 (receive buffers of the
// message sizes), DC=1 (tx op_flags FI_DELIVERY_COMPLETE).

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define CK(x) do { int _r = (x); if (_r) { printf("%s = %d (%s)\n", #x, _r, fi_strerror(-_r)); exit(1);} } while (0)
struct side { struct fid_fabric *f; struct fid_domain *d; struct fid_ep *ep; struct fid_cq *tx, *rx; struct fid_av *av; fi_addr_t peer; };
static struct fi_info *info;
static void open_side(struct side *s, uint64_t txflags) {
  CK(fi_fabric(info->fabric_attr, &s->f, NULL));
  CK(fi_domain(s->f, info, &s->d, NULL));
  struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_TAGGED, .size = 128 };
  CK(fi_cq_open(s->d, &ca, &s->tx, NULL));
  CK(fi_cq_open(s->d, &ca, &s->rx, NULL));
  struct fi_av_attr aa = { .type = FI_AV_MAP };
  CK(fi_av_open(s->d, &aa, &s->av, NULL));
  CK(fi_endpoint(s->d, info, &s->ep, NULL));
  CK(fi_ep_bind(s->ep, &s->av->fid, 0));
  CK(fi_ep_bind(s->ep, &s->tx->fid, FI_TRANSMIT | txflags));
  CK(fi_ep_bind(s->ep, &s->rx->fid, FI_RECV));
  CK(fi_enable(s->ep));
}
static void drain(const char *what, struct fid_cq *cq, int want) {
  struct fi_cq_tagged_entry e[4]; int got = 0;
  for (int spin = 0; spin < 2000000 && got < want; spin++) {
    ssize_t n = fi_cq_read(cq, e, 1);
    if (n == -FI_EAVAIL) { struct fi_cq_err_entry err = {0}; fi_cq_readerr(cq, &err, 0);
      printf("%s: error ctx=%p err=%d olen=%zu len=%zu\n", what, err.op_context, err.err, err.olen, err.len); got++; continue; }
    if (n == 1) { printf("%s: ctx=%p flags=0x%lx len=%zu data=0x%lx\n", what, e[0].op_context, (unsigned long)e[0].flags, e[0].len, (unsigned long)e[0].data); got++; }
  }
  if (got < want) printf("%s: only %d of %d completions\n", what, got, want);
}
int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0); const char *prov = argv[1]; size_t sz1 = atoi(argv[2]), sz2 = atoi(argv[3]); int selective = argc > 4 && atoi(argv[4]);
  struct fi_info *hints = fi_allocinfo();
  hints->ep_attr->type = FI_EP_RDM; hints->caps = getenv("CAPS") ? strtoull(getenv("CAPS"), NULL, 0) : FI_MSG; hints->mode = FI_CONTEXT | FI_CONTEXT2;
  hints->fabric_attr->prov_name = strdup(prov);
  hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
  if (selective) hints->tx_attr->op_flags = 0;
  if (getenv("DC")) hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
  CK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info));
  if (selective) info->tx_attr->op_flags &= ~FI_COMPLETION;
  printf("src=%.*s\n", (int)info->src_addrlen, info->src_addr ? (char*)info->src_addr : ""); printf("provider %s mode 0x%lx mr_mode 0x%x\n", info->fabric_attr->prov_name, (unsigned long)info->mode, info->domain_attr->mr_mode);
  struct side a, b; open_side(&a, selective ? FI_SELECTIVE_COMPLETION : 0); open_side(&b, 0);
  char name[256]; size_t len = sizeof(name);
  CK(fi_getname(&b.ep->fid, name, &len)); if (fi_av_insert(a.av, name, 1, &a.peer, 0, NULL) != 1) return 2;
  len = sizeof(name); CK(fi_getname(&a.ep->fid, name, &len)); if (fi_av_insert(b.av, name, 1, &b.peer, 0, NULL) != 1) return 2;
  static char r1[32], r2[32], t1[4096], t2[4096]; struct fi_context2 cr1, cr2, ct1, ct2;
  printf("contexts r1=%p r2=%p t1=%p t2=%p\n", &cr1, &cr2, &ct1, &ct2);
  size_t rl1 = getenv("EXACT") ? sz1 : sizeof r1, rl2 = getenv("EXACT") ? sz2 : sizeof r2;
  CK((int)fi_recv(b.ep, r1, rl1, NULL, FI_ADDR_UNSPEC, &cr1));
  CK((int)fi_recv(b.ep, r2, rl2, NULL, FI_ADDR_UNSPEC, &cr2));
  ssize_t rc;
  while ((rc = fi_send(a.ep, t1, sz1, NULL, a.peer, &ct1)) == -FI_EAGAIN) { fi_cq_read(a.tx, NULL, 0); fi_cq_read(b.rx, NULL, 0); }
  CK((int)rc);
  if (selective) {
    struct iovec iov = { t2, sz2 }; struct fi_msg m = { .msg_iov = &iov, .iov_count = 1, .addr = a.peer, .context = &ct2 };
    while ((rc = fi_sendmsg(a.ep, &m, FI_COMPLETION)) == -FI_EAGAIN) { fi_cq_read(a.tx, NULL, 0); fi_cq_read(b.rx, NULL, 0); }
  } else {
    while ((rc = fi_send(a.ep, t2, sz2, NULL, a.peer, &ct2)) == -FI_EAGAIN) { fi_cq_read(a.tx, NULL, 0); fi_cq_read(b.rx, NULL, 0); }
  }
  CK((int)rc);
  for (int i = 0; i < 2; i++) { drain("rx", b.rx, 1); fi_cq_read(a.tx, NULL, 0); }
  drain("tx", a.tx, selective ? 1 : 2);
  drain("tx-extra", a.tx, 1);
  return 0;
}
