#!/usr/bin/env bash
# Installs the Debian packages jfabric's tests use: libfabric (fi_info, fi_pingpong, headers for the
# FFM layout probes), rdma-core headers for the verbs bindings, gcc for the probes, iproute2 for the
# network-namespace tests. Idempotent: does nothing when everything is present.
set -euo pipefail
PKGS=(libfabric1 libfabric-dev libfabric-bin libibverbs-dev librdmacm-dev ibverbs-utils gcc iproute2 maven)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing: ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
