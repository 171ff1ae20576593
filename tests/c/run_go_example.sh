#!/usr/bin/env bash
# examples/go (cgo over the C API) built offline and run on its test data:
#   run_go_example.sh <repo> <work dir> <lib dir> <order_table binary>
# Checks (1) its pod -> node lines equal the C API's table (order_table, the
# same job and hosts through C directly), (2) its whole output equals
# examples/go/testdata/expected.txt, (3) labels that disagree with the cluster
# are refused with exit status 2 and a message naming the node.
# Exit 77 (CTest SKIP_RETURN_CODE) with the reason when `go` is missing.
set -euo pipefail
repo="$1" work="$2" libdir="$3" order_table="$4"
if ! command -v go >/dev/null 2>&1; then
  echo "SKIPPED: go not found (Debian: apt-get install golang-go)"
  exit 77
fi
mkdir -p "${work}"
# Offline: a go.mod with no requirements, no proxy, no module downloads.
export GO111MODULE=on GOPROXY=off GOFLAGS=-mod=readonly GOTOOLCHAIN=local
export GOCACHE="${work}/cache" GOPATH="${work}/gopath"
export CGO_ENABLED=1
export CGO_CFLAGS="-I${repo}/include"
export CGO_LDFLAGS="-L${libdir} -Wl,-rpath,${libdir}"
(cd "${repo}/examples/go" && go build -o "${work}/podorder" .)

nodes="${repo}/examples/go/testdata/nodes.json"
job="tp=8,pp=4,dp=4"
out="$("${work}/podorder" -cluster h100-1024 -job "${job}" -nodes "${nodes}")"
# The nodes of the file, in its order, as a hostlist for the C reference.
hostlist="$(grep -o '"kubernetes.io/hostname": "[^"]*"' "${nodes}" | cut -d'"' -f4 | paste -sd, -)"
reference="$("${order_table}" h100-1024 "${job}" "${hostlist}")"
ours="$(printf '%s\n' "${out}" | sed -n 's/^\(pod [0-9]* node [^ ]*\) .*/\1/p')"
if [[ "${ours}" != "${reference}" ]]; then
  echo "podorder disagrees with the C API's table:"
  diff <(printf '%s\n' "${reference}") <(printf '%s\n' "${ours}") || true
  exit 1
fi
if ! diff <(printf '%s\n' "${out}") "${repo}/examples/go/testdata/expected.txt"; then
  echo "podorder output differs from examples/go/testdata/expected.txt"
  exit 1
fi

# A node labelled with another SU's switch: refused, naming it.
sed 's/"fabric.topograph.run\/tier-0": "su2"/"fabric.topograph.run\/tier-0": "su1"/' "${nodes}" \
  >"${work}/stale.json"
set +e
msg="$("${work}/podorder" -cluster h100-1024 -job "${job}" -nodes "${work}/stale.json" 2>&1)"
rc=$?
set -e
if [[ ${rc} -ne 2 || "${msg}" != *"stale labels or a wrong -cluster"* ]]; then
  echo "stale labels: expected exit 2 and a message, got ${rc}: ${msg}"
  exit 1
fi
echo "go example: $(printf '%s\n' "${ours}" | wc -l) pods match the C API's rank table"
