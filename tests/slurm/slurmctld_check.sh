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
#   * node names from the pattern (default node{host:04}), worked out by
#     node_names.awk.
# Slurm numbers levels from 0 at the leaves; railyard from 1. The comparison
# uses railyard's numbering (Slurm's Level + 1).
#
# Only bash, awk and coreutils besides Slurm and munge (a fresh Debian 12 has
# no python3).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=slurm_env.sh
source "${here}/slurm_env.sh"

usage() {
  echo "usage: bash slurmctld_check.sh <railyard-binary> <cluster-spec> [<node-pattern>]" >&2
  exit 2
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

# --- Prerequisites and the temporary directory -----------------------------
slurm_require slurmctld scontrol munged
slurm_begin

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
if ! awk -v pattern="${pattern}" -f "${here}/node_names.awk" "${work}/describe.json" \
  >"${work}/names.txt"; then
  fail "could not work out the node names for ${spec} (pattern ${pattern})"
fi
if ! awk -v names_file="${work}/names.txt" '
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

    # Node names, from node_names.awk.
    while ((getline line < names_file) > 0) {
      split(line, f, " "); node[f[1] + 0] = f[2]; named++
    }
    if (named != hosts) die("node_names.awk named " named " of " hosts " hosts")

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
# no slurmd. Until slurm.conf is complete, scontrol expands hostlists with
# the two-line file slurm_begin wrote.
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

slurm_free_ports 2
slurm_write_conf "TopologyPlugin=topology/tree" "${node_lines}" \
  "PartitionName=all Nodes=ALL Default=YES State=UP"

# --- munged and slurmctld ---------------------------------------------------
# topology.conf is read from the directory of slurm.conf.
slurm_start_munged
slurm_start_slurmctld

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
