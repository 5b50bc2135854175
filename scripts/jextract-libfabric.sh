#!/bin/sh
# Regenerates provider-libfabric's FFM bindings (io.jfabric.provider.ofi.ffi) with jextract.
#
# Pinned inputs (what the committed bindings were checked against):
#   jextract 25 (openjdk/jextract master, libclang 14) -- not installable from a package registry;
#     where it is missing, scripts/jextract-libfabric.fallback.py writes the same classes
#   libfabric-dev 1.17.0-3 (Debian bookworm), x86_64 LP64 ABI, FI_VERSION(1,17)
# The symbol list is the @argfile jextract-libfabric.includes. Functions bound: only the 7 that
# libfabric.so.1 exports and the bridge uses; the static inline fi_* calls (fi_domain, fi_send,
# fi_cq_read, fi_close, ...) are reimplemented in FabricInline through the ops tables; the data-path ones
# (fi_send, fi_recv, fi_inject, fi_cq_read, ...) go through the hand-written DataCalls, in address form.
# After regenerating, run: mvn -q -o -B -pl provider-libfabric -am test -Dtest=ProbeLayoutTest
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/provider-libfabric/src/main/java"
cat > /tmp/jfabric-libfabric-all.h <<'H'
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_tagged.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_errno.h>
H
exec jextract \
  --output "$out" \
  --target-package io.jfabric.provider.ofi.ffi \
  --header-class-name Fabric_h \
  --library :libfabric.so.1 \
  @"$root/scripts/jextract-libfabric.includes" \
  /tmp/jfabric-libfabric-all.h
