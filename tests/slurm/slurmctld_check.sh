#!/usr/bin/env bash
# Real-consumer check for railyard's SLURM topology/tree export: start a
# private slurmctld (Debian's slurm-wlm, with munge) on loopback, load the
# topology.conf railyard writes, and check that `scontrol show topology`
# reports the same switches, levels and node membership as railyard's own
# description of the cluster.
#
#   bash tests/slurm/slurmctld_check.sh <railyard-binary> <cluster-spec> [<node-pattern>]
#
# Exit status: 0 passed, 1 failed, 2 usage error, 77 skipped (slurmctld,
# scontrol or munged not installed; CTest maps 77 to "skipped" through
# SKIP_RETURN_CODE). Prints `PASSED: ...`, `FAILED: ...` or `SKIPPED: ...`.
#
# The topology.conf comes from
#   <railyard-binary> export --cluster <spec> --format slurm-tree [--node-pattern P]
# Developer escape hatch: if RAILYARD_TOPOLOGY_CONF names a file, that file is
# loaded instead of running the export (the expected tree is still computed
# from the spec), e.g. a hand-written file for h100-1024-2to1:
#   SwitchName=su0 Nodes=node[0000-0031]
#   SwitchName=su1 Nodes=node[0032-0063]
#   SwitchName=su2 Nodes=node[0064-0095]
#   SwitchName=su3 Nodes=node[0096-0127]
#   SwitchName=spine Switches=su[0-3]
# Set RAILYARD_SLURM_KEEP=1 to keep the temporary directory (configs, logs).
#
# The expected tree is worked out here, independently of railyard's exporter,
# from `<railyard-binary> describe --cluster <spec> --json` and the rules in
# include/railyard/topology/switch_tree.hpp (header comment) and
# include/railyard/topology/node_names.hpp:
#   * rail_fat_tree / rail_only: one leaf-level switch su<N> per SU holding
#     that SU's hosts; tor_fat_tree: one leaf<N> per top-of-rack leaf
#     (switches.leaf / planes of them, hosts split evenly in host order);
#   * a single leaf-level switch has nothing above it; tiers=2: `spine` above
#     every leaf-level switch; tiers=3: pod<N> above the leaf-level switches of
#     each pod and `core` above the pods;
#   * numbers zero-padded to the digit count of the largest one;
#   * node names from the pattern (default node{host:04}); {f:0N} pads to
#     max(N, digits of the largest value of f).
# Slurm numbers levels from 0 at the leaves; railyard from 1. The comparison
# uses railyard's numbering (Slurm's Level + 1).
#
# Only bash, awk and coreutils besides Slurm and munge (a fresh Debian 12 has
# no python3).
set -euo pipefail

usage() {
  echo "usage: bash slurmctld_check.sh <railyard-binary> <cluster-spec> [<node-pattern>]" >&2
  exit 2
}
fail() {
  echo "FAILED: $*" >&2
  exit 1
}
skip() {
  echo "SKIPPED: $*"
  exit 77
}

[[ $# -eq 2 || $# -eq 3 ]] || usage
railyard="$1"
spec="$2"
pattern="node{host:04}"
pattern_args=()
if [[ $# -eq 3 ]]; then
  pattern="$3"
  pattern_args=(--node-pattern "$3")
fi

[[ -x "${railyard}" ]] || fail "railyard binary '${railyard}' is not executable"

# --- Prerequisites ---------------------------------------------------------
# Debian installs slurmctld and munged under /usr/sbin, which a non-root PATH
# may lack.
PATH="${PATH}:/usr/sbin:/sbin"
missing=()
for tool in slurmctld scontrol munged; do
  command -v "${tool}" >/dev/null 2>&1 || missing+=("${tool}")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  skip "${missing[*]} not installed (Debian: apt-get install slurmctld slurm-client munge)"
fi

# --- Temporary directory and cleanup ---------------------------------------
work="$(mktemp -d "${TMPDIR:-/tmp}/railyard-slurm.XXXXXX")"
ctld_pid=""
cleanup() {
  local rc=$?
  if [[ -n "${ctld_pid}" ]] && kill -0 "${ctld_pid}" 2>/dev/null; then
    kill -TERM "${ctld_pid}" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "${ctld_pid}" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "${ctld_pid}" 2>/dev/null || true
    wait "${ctld_pid}" 2>/dev/null || true
  fi
  if [[ -s "${work}/munged.pid" ]]; then
    local mpid
    mpid="$(cat "${work}/munged.pid")"
    if kill -0 "${mpid}" 2>/dev/null; then
      kill -TERM "${mpid}" 2>/dev/null || true
      for _ in $(seq 1 50); do
        kill -0 "${mpid}" 2>/dev/null || break
        sleep 0.1
      done
      kill -KILL "${mpid}" 2>/dev/null || true
    fi
  fi
  if [[ "${RAILYARD_SLURM_KEEP:-0}" == 1 ]]; then
    echo "kept ${work}" >&2
  else
    rm -rf "${work}"
  fi
  exit "${rc}"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# munged wants the directory holding its socket to be searchable by everyone.
chmod 0711 "${work}"
mkdir -p "${work}/state" "${work}/spool"
export SLURM_CONF="${work}/slurm.conf"
user="$(id -un)"

# On failure: show the tail of a log.
show_log() {
  if [[ -s "$1" ]]; then
    echo "--- last lines of $1:" >&2
    tail -n 30 "$1" >&2
  fi
}

# --- topology.conf ---------------------------------------------------------
topo="${work}/topology.conf"
if [[ -n "${RAILYARD_TOPOLOGY_CONF:-}" ]]; then
  [[ -r "${RAILYARD_TOPOLOGY_CONF}" ]] || fail "RAILYARD_TOPOLOGY_CONF=${RAILYARD_TOPOLOGY_CONF} is not readable"
  echo "note: using RAILYARD_TOPOLOGY_CONF=${RAILYARD_TOPOLOGY_CONF} instead of railyard export"
  cp "${RAILYARD_TOPOLOGY_CONF}" "${topo}"
else
  if ! "${railyard}" export --cluster "${spec}" --format slurm-tree "${pattern_args[@]}" \
    >"${topo}" 2>"${work}/export.err"; then
    cat "${work}/export.err" >&2
    fail "railyard export --cluster ${spec} --format slurm-tree${3:+ --node-pattern $3} failed"
  fi
fi
[[ -s "${topo}" ]] || fail "topology.conf is empty"

# --- Expected tree, from `railyard describe --json` ------------------------
# Lines: `S <switch> <level>`, `N <leaf switch> <node>`, `C <switch> <child>`.
if ! "${railyard}" describe --cluster "${spec}" --json >"${work}/describe.json" \
  2>"${work}/describe.err"; then
  cat "${work}/describe.err" >&2
  fail "railyard describe --cluster ${spec} --json failed"
fi
if ! awk -v pattern="${pattern}" '
  function die(msg) { print "expected tree: " msg > "/dev/stderr"; bad = 1; exit 1 }
  function digits(n) { return length(sprintf("%d", n)) }
  function pad(prefix, n, count,   w) {
    w = digits(count > 0 ? count - 1 : 0)
    return prefix sprintf("%0" w "d", n)
  }
  # Top-level keys are indented by two spaces, the switch counts by four
  # inside "switches".
  /^  "[a-z_]+": / {
    key = $1; gsub(/[":]/, "", key)
    val = $0; sub(/^[^:]*: */, "", val); sub(/,$/, "", val); gsub(/"/, "", val)
    top[key] = val
    section = (val == "{") ? key : ""
    next
  }
  /^    "[a-z_]+": / && section == "switches" {
    key = $1; gsub(/[":]/, "", key)
    val = $2; sub(/,$/, "", val)
    switches[key] = val
  }
  END {
    if (bad) exit 1
    kind = top["kind"]; hosts = top["hosts"] + 0; sus = top["sus"] + 0
    pods = top["pods"] + 0; planes = top["planes"] + 0
    domains = top["nvlink_domains"] + 0; leaves = switches["leaf"] + 0
    if (match(top["cluster"], /tiers=[0-9]+/))
      tiers = substr(top["cluster"], RSTART + 6, RLENGTH - 6) + 0
    if (kind == "" || hosts <= 0 || sus <= 0 || pods <= 0 || planes <= 0 || domains <= 0 ||
        leaves <= 0 || tiers <= 0)
      die("describe --json lacks kind/hosts/sus/pods/planes/nvlink_domains/switches.leaf/tiers")
    hosts_per_su = hosts / sus; sus_per_pod = sus / pods; hosts_per_domain = hosts / domains

    # Node names from the pattern.
    np = 0; lit = ""; rest = pattern
    while ((i = index(rest, "{")) > 0) {
      lit = lit substr(rest, 1, i - 1); rest = substr(rest, i + 1)
      j = index(rest, "}"); if (j == 0) die("unbalanced { in " pattern)
      body = substr(rest, 1, j - 1); rest = substr(rest, j + 1)
      np++; plit[np] = lit; lit = ""
      c = index(body, ":")
      pfield[np] = c ? substr(body, 1, c - 1) : body
      pwidth[np] = c ? substr(body, c + 1) + 0 : 0
      if (pfield[np] !~ /^(host|su|pod|slot|domain)$/) die("unknown placeholder " body)
    }
    tail = lit rest
    if (np == 0) die("no placeholder in " pattern)
    for (h = 0; h < hosts; h++) {
      v["host"] = h; v["su"] = int(h / hosts_per_su); v["pod"] = int(v["su"] / sus_per_pod)
      v["slot"] = h % hosts_per_su; v["domain"] = int(h / hosts_per_domain)
      if (h == hosts - 1) for (f in v) vmax[f] = v[f]
      for (f in v) hv[h, f] = v[f]
    }
    vmax["slot"] = hosts_per_su - 1
    for (h = 0; h < hosts; h++) {
      name = ""
      for (p = 1; p <= np; p++) {
        x = hv[h, pfield[p]]
        if (pwidth[p] > 0) {
          w = pwidth[p]; if (digits(vmax[pfield[p]]) > w) w = digits(vmax[pfield[p]])
          x = sprintf("%0" w "d", x)
        }
        name = name plit[p] x
      }
      node[h] = name tail
    }

    # Leaf-level switches.
    tor = (kind == "tor_fat_tree")
    groups = tor ? leaves / planes : sus
    per_group = hosts / groups
    if (groups != int(groups) || per_group != int(per_group))
      die("hosts do not split evenly over " groups " leaf-level switches")
    for (g = 0; g < groups; g++) {
      leaf[g] = pad(tor ? "leaf" : "su", g, groups)
      print "S", leaf[g], 1
      for (i = 0; i < per_group; i++) print "N", leaf[g], node[g * per_group + i]
    }
    if (groups == 1) exit 0
    if (tiers == 2) {
      print "S", "spine", 2
      for (g = 0; g < groups; g++) print "C", "spine", leaf[g]
      exit 0
    }
    per_pod = groups / pods
    print "S", "core", 3
    for (p = 0; p < pods; p++) {
      pod = pad("pod", p, pods)
      print "S", pod, 2
      print "C", "core", pod
      for (g = 0; g < per_pod; g++) print "C", pod, leaf[p * per_pod + g]
    }
  }' "${work}/describe.json" | LC_ALL=C sort >"${work}/expected.txt"; then
  fail "could not work out the expected tree for ${spec}"
fi
[[ -s "${work}/expected.txt" ]] || fail "empty expected tree for ${spec}"

# --- slurm.conf ------------------------------------------------------------
# Nodes are the ones topology.conf names (expanded by Slurm, duplicates
# dropped), declared State=FUTURE: FUTURE nodes need no name resolution and
# no slurmd. Until slurm.conf is complete a two-line file lets scontrol
# expand hostlists.
printf 'ClusterName=railyard\nSlurmctldHost=localhost\n' >"${SLURM_CONF}"
: >"${work}/nodes.txt"
while IFS= read -r expr; do
  scontrol show hostnames "${expr}" >>"${work}/nodes.txt" ||
    fail "scontrol cannot expand '${expr}' from topology.conf"
done < <(awk '{ sub(/#.*/, "") }
  { for (i = 1; i <= NF; i++) if (tolower($i) ~ /^nodes=/) print substr($i, 7) }' "${topo}")
LC_ALL=C sort -u -o "${work}/nodes.txt" "${work}/nodes.txt"
[[ -s "${work}/nodes.txt" ]] || fail "topology.conf names no nodes"
# Recompressed by Slurm, 256 names per NodeName line to keep lines short.
mapfile -t all_nodes <"${work}/nodes.txt"
node_lines=""
for ((i = 0; i < ${#all_nodes[@]}; i += 256)); do
  chunk="$(IFS=,; echo "${all_nodes[*]:i:256}")"
  expr="$(scontrol show hostlist "${chunk}")" || fail "scontrol cannot compress ${chunk}"
  node_lines+="${node_lines:+$'\n'}NodeName=${expr} State=FUTURE CPUs=1"
done

# A free loopback port for slurmctld (bash's /dev/tcp connects if taken).
port=""
base=$((20000 + $$ % 10000))
for try in $(seq 0 49); do
  candidate=$((base + try * 2))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/${candidate}") 2>/dev/null &&
    ! (exec 3<>"/dev/tcp/127.0.0.1/$((candidate + 1))") 2>/dev/null; then
    port="${candidate}"
    break
  fi
done
[[ -n "${port}" ]] || fail "no free port near ${base}"

cat >"${SLURM_CONF}" <<EOF
# Written by railyard tests/slurm/slurmctld_check.sh for ${spec}
ClusterName=railyard
SlurmctldHost=localhost
SlurmctldPort=${port}
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=${work}/munge.socket
CredType=cred/munge
SlurmUser=${user}
SlurmdUser=${user}
StateSaveLocation=${work}/state
SlurmdSpoolDir=${work}/spool
SlurmctldLogFile=${work}/slurmctld.log
SlurmctldPidFile=${work}/slurmctld.pid
SlurmdPidFile=${work}/slurmd.pid
SlurmctldDebug=info
MailProg=/bin/true
SelectType=select/cons_tres
TopologyPlugin=topology/tree
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
${node_lines}
PartitionName=all Nodes=ALL Default=YES State=UP
EOF

# --- munged ----------------------------------------------------------------
# Its own key, socket, pid, log and seed files; it daemonizes once the socket
# is ready and refuses to start (non-zero exit) otherwise.
if command -v mungekey >/dev/null 2>&1; then
  mungekey --create --keyfile="${work}/munge.key" --bits=1024 >/dev/null 2>&1 ||
    fail "mungekey could not create ${work}/munge.key"
else
  dd if=/dev/urandom of="${work}/munge.key" bs=1 count=1024 status=none
fi
chmod 0600 "${work}/munge.key"
if ! munged --key-file="${work}/munge.key" --socket="${work}/munge.socket" \
  --pid-file="${work}/munged.pid" --log-file="${work}/munged.log" \
  --seed-file="${work}/munged.seed" 2>"${work}/munged.err"; then
  cat "${work}/munged.err" >&2
  show_log "${work}/munged.log"
  fail "munged did not start"
fi

# --- slurmctld -------------------------------------------------------------
# topology.conf is read from the directory of slurm.conf.
slurmctld -D -c -f "${SLURM_CONF}" >"${work}/slurmctld.out" 2>&1 &
ctld_pid=$!
up=0
for _ in $(seq 1 150); do # 30 s
  if ! kill -0 "${ctld_pid}" 2>/dev/null; then
    show_log "${work}/slurmctld.out"
    fail "slurmctld exited during start-up"
  fi
  if scontrol ping 2>/dev/null | grep -q ' is UP'; then
    up=1
    break
  fi
  sleep 0.2
done
if [[ ${up} -ne 1 ]]; then
  show_log "${work}/slurmctld.log"
  fail "slurmctld did not answer scontrol ping within 30 s"
fi

if ! scontrol show topology >"${work}/topology.out" 2>"${work}/topology.err"; then
  cat "${work}/topology.err" >&2
  show_log "${work}/slurmctld.log"
  fail "scontrol show topology failed"
fi

# --- What slurmctld sees ---------------------------------------------------
# `SwitchName=X Level=N LinkSpeed=S Nodes=<hostlist> Switches=<hostlist>`;
# upper switches also list every node below them under Nodes=, so node
# membership is taken from level-0 switches and children from Switches=.
: >"${work}/actual.unsorted"
while IFS= read -r line; do
  [[ -n "${line}" ]] || continue
  name="" level="" nodes="" children=""
  for field in ${line}; do
    case "${field}" in
      SwitchName=*) name="${field#*=}" ;;
      Level=*) level="${field#*=}" ;;
      Nodes=*) nodes="${field#*=}" ;;
      Switches=*) children="${field#*=}" ;;
    esac
  done
  [[ -n "${name}" && "${level}" =~ ^[0-9]+$ ]] || fail "cannot parse scontrol line: ${line}"
  echo "S ${name} $((level + 1))" >>"${work}/actual.unsorted"
  if [[ "${level}" -eq 0 && -n "${nodes}" && "${nodes}" != "(null)" ]]; then
    scontrol show hostnames "${nodes}" | sed "s/^/N ${name} /" >>"${work}/actual.unsorted"
  fi
  if [[ -n "${children}" && "${children}" != "(null)" ]]; then
    scontrol show hostnames "${children}" | sed "s/^/C ${name} /" >>"${work}/actual.unsorted"
  fi
done <"${work}/topology.out"
LC_ALL=C sort "${work}/actual.unsorted" >"${work}/actual.txt"

# --- Verdict ---------------------------------------------------------------
status=0
if ! diff -u --label "expected (railyard describe, ${spec})" --label "slurmctld (scontrol show topology)" \
  "${work}/expected.txt" "${work}/actual.txt" >"${work}/diff.txt"; then
  echo "slurmctld's tree differs from railyard's (S switch level, N leaf node, C child switch):" >&2
  head -n 80 "${work}/diff.txt" >&2
  lines="$(wc -l <"${work}/diff.txt")"
  [[ "${lines}" -le 80 ]] || echo "... ($((lines - 80)) more diff lines)" >&2
  status=1
fi

# Slurm's topology/tree complaints (e.g. "Multiple leaf switches contain
# nodes", unknown nodes or switches) show up in slurmctld's log.
if grep -iE 'topology|switch' "${work}/slurmctld.log" | grep -iE 'error|warn|multiple|invalid|fatal' \
  >"${work}/topology-errors.txt"; then
  echo "slurmctld complained about the topology:" >&2
  head -n 20 "${work}/topology-errors.txt" >&2
  status=1
fi

if [[ ${status} -ne 0 ]]; then
  echo "--- scontrol show topology:" >&2
  head -n 20 "${work}/topology.out" >&2
  fail "slurmctld's view of ${spec} does not match railyard's"
fi

switch_count="$(grep -c '^S ' "${work}/expected.txt")"
node_count="$(grep '^N ' "${work}/expected.txt" | awk '{ print $3 }' | LC_ALL=C sort -u | wc -l)"
echo "PASSED: ${switch_count} switches, ${node_count} nodes (${spec}, slurmctld $(slurmctld -V 2>/dev/null | awk '{ print $2 }'))"
