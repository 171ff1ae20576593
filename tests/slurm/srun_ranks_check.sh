#!/usr/bin/env bash
# Real-consumer check of `railyard export --format slurm-hostfile`: Slurm
# itself must start rank r on the node and GPU railyard assigned.
#
#   bash tests/slurm/srun_ranks_check.sh [--tree] <railyard-binary> <cluster-spec> <job-plan> <hosts> [<node-pattern>]
#
# e.g. `... h100-1024 tp=8,pp=2,dp=2 97,2,64,33 'gpu{slot:02}-su{su}'`. Exit status: 0 passed, 1
# failed, 2 usage error, 77 skipped (slurmctld, slurmd, scontrol, srun, sbatch
# or munged not installed). Prints `PASSED: ...`, `FAILED: ...` or
# `SKIPPED: ...`. Set RAILYARD_SLURM_KEEP=1 to keep the temporary directory.
#
# What runs: a private munged and slurmctld on loopback (slurm_env.sh) and one
# slurmd per job host, each started as `slurmd -N <node>` with its own Port=
# (several slurmd on one machine; Debian's Slurm is built with
# --enable-multiple-slurmd). The nodes are named as railyard names hosts
# (the node pattern, default node{host:04}) and have CPUs = GPUs per host, so a
# node takes exactly G tasks. Then, for railyard's order and for the naive one:
#   railyard export --format slurm-hostfile --cluster C --job P --hosts H [--order naive] > F
#   SLURM_HOSTFILE=F srun -n W --distribution=arbitrary task.sh
# and, for railyard's order, the same srun inside a batch allocation
#   sbatch -N <hosts> -w <nodes> --wrap "SLURM_HOSTFILE=F srun -n W -m arbitrary task.sh"
# With --tree, slurmctld also runs topology/tree with the topology.conf of
# `railyard export --format slurm-tree` (same pattern), and slurm.conf declares
# every other node of the cluster State=FUTURE (no slurmd needed): a site that
# uses both railyard files at once.
# Each task prints SLURM_PROCID, SLURMD_NODENAME, SLURM_LOCALID (srun(1),
# "OUTPUT ENVIRONMENT VARIABLES": the rank, the node it runs on, its index
# among the step's tasks on that node) and CUDA_VISIBLE_DEVICES.
#
# GPUs: as root, each node also gets G GPUs in Slurm's GRES (GresTypes=gpu,
# Gres=gpu:G, gres.conf File= pointing at G character devices made with
# mknod, numbered like /dev/null: Slurm only needs device files), and the
# steps ask for --gpus-per-task=1. Slurm's gres/gpu plugin then binds each
# task to one GPU and sets CUDA_VISIBLE_DEVICES ("per_task ... Gpus are
# assigned in order to tasks", srun(1) --gpu-bind). Without root (no mknod)
# the GPU is checked through SLURM_LOCALID only, and the PASSED line says so.
#
# The expected placement is railyard's rank table, `railyard order --json`
# (ranks[] {rank, host, gpu}), a different code path from the hostfile
# writer, with host ids named by node_names.awk (from `railyard describe
# --json`, not railyard's NodeNamer): task r must run on the node named for
# ranks[r].host, with SLURM_LOCALID = ranks[r].gpu (a program picks
# cuda:SLURM_LOCALID when it sees all the node's GPUs) and, with GRES GPUs,
# CUDA_VISIBLE_DEVICES = ranks[r].gpu (the one GPU it sees).
# The two orders must give different tables, and srun without the file
# (its block distribution, in Slurm's node order) must not already match
# railyard's, so a srun that ignored the file fails.
#
# Only bash, awk and coreutils besides Slurm and munge.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=slurm_env.sh
source "${here}/slurm_env.sh"

usage() {
  echo "usage: bash srun_ranks_check.sh [--tree] <railyard-binary> <cluster-spec> <job-plan> <hosts> [<node-pattern>]" >&2
  exit 2
}

# --tree may stand anywhere.
tree=0
args=()
for arg in "$@"; do
  if [[ "${arg}" == --tree ]]; then tree=1; else args+=("${arg}"); fi
done
set -- "${args[@]}"
[[ $# -eq 4 || $# -eq 5 ]] || usage
railyard="$1"
spec="$2"
plan="$3"
hosts="$4"
pattern="${5:-node{host:04\}}"
[[ -x "${railyard}" ]] || fail "railyard binary '${railyard}' is not executable"

slurm_require slurmctld slurmd scontrol srun sbatch sinfo munged
slurm_begin

job_args=(--cluster "${spec}" --job "${plan}" --hosts "${hosts}")

# GRES GPUs need device files; mknod needs root (CAP_MKNOD).
gpu_gres=0
mkdir -p "${work}/dev"
if mknod "${work}/dev/gpu0" c 1 3 2>/dev/null; then gpu_gres=1; fi

# --- Node names ---------------------------------------------------------------
if ! "${railyard}" describe --cluster "${spec}" --json >"${work}/describe.json" \
  2>"${work}/describe.err"; then
  cat "${work}/describe.err" >&2
  fail "railyard describe --cluster ${spec} --json failed"
fi
awk -v pattern="${pattern}" -f "${here}/node_names.awk" "${work}/describe.json" \
  >"${work}/names.txt" || fail "could not work out the node names for ${spec} (pattern ${pattern})"

# --- railyard's tables and hostfiles ----------------------------------------
# expected_table <order> <out>: lines `rank node gpu cvd`, rank order, from
# `railyard order --json` (the JSON writer puts one key per line); cvd, the
# expected CUDA_VISIBLE_DEVICES, is the GPU with GRES GPUs and `-` without.
expected_table() {
  local order="$1" out="$2"
  if ! "${railyard}" order "${job_args[@]}" --order "${order}" --json \
    >"${work}/order-${order}.json" 2>"${work}/order.err"; then
    cat "${work}/order.err" >&2
    fail "railyard order ${job_args[*]} --order ${order} --json failed"
  fi
  awk -v names_file="${work}/names.txt" -v cvd="${gpu_gres}" '
    BEGIN { while ((getline line < names_file) > 0) { split(line, f, " "); name[f[1] + 0] = f[2] } }
    /"ranks": \[/ { in_ranks = 1; next }
    in_ranks && /^  \]/ { in_ranks = 0 }
    !in_ranks { next }
    /"rank": / { v = $2; sub(/,$/, "", v); rank = v + 0; have = 1 }
    /"host": / { v = $2; sub(/,$/, "", v); host[rank] = v + 0 }
    /"gpu": /  { v = $2; sub(/,$/, "", v); gpu[rank] = v + 0; n = (rank + 1 > n) ? rank + 1 : n }
    END {
      if (!have || n == 0) { print "no ranks[] in railyard order --json" > "/dev/stderr"; exit 1 }
      for (r = 0; r < n; r++) {
        if (!(r in host) || !(r in gpu)) { print "rank " r " missing" > "/dev/stderr"; exit 1 }
        if (!(host[r] in name)) { print "host " host[r] " has no name" > "/dev/stderr"; exit 1 }
        printf "%d %s %d %s\n", r, name[host[r]], gpu[r], (cvd ? gpu[r] : "-")
      }
    }' "${work}/order-${order}.json" >"${out}" ||
    fail "cannot read the rank table of railyard order --order ${order} --json"
}

# hostfile <order> <out>: what the user hands to srun.
hostfile() {
  local order="$1" out="$2"
  if ! "${railyard}" export --format slurm-hostfile "${job_args[@]}" --order "${order}" \
    --node-pattern "${pattern}" \
    >"${out}" 2>"${work}/export.err"; then
    cat "${work}/export.err" >&2
    fail "railyard export --format slurm-hostfile ${job_args[*]} --order ${order} failed"
  fi
  [[ -s "${out}" ]] || fail "railyard export --format slurm-hostfile (${order}) is empty"
}

expected_table railyard "${work}/expected-railyard.txt"
expected_table naive "${work}/expected-naive.txt"
hostfile railyard "${work}/hostfile-railyard"
hostfile naive "${work}/hostfile-naive"

world="$(wc -l <"${work}/expected-railyard.txt")"
[[ "$(wc -l <"${work}/expected-naive.txt")" -eq "${world}" ]] ||
  fail "railyard and naive tables have different rank counts"
if cmp -s "${work}/expected-railyard.txt" "${work}/expected-naive.txt"; then
  fail "railyard's and the naive order agree for ${plan} on hosts ${hosts}: the check could not" \
    "tell whether srun followed the file (pick hosts in an order railyard changes)"
fi
# Nodes and GPUs per host: every job host holds the same number of ranks.
# nodes.txt: railyard's launch order (host of rank 0 first).
awk '!seen[$2]++ { print $2 }' "${work}/expected-railyard.txt" >"${work}/nodes.txt"
node_count="$(wc -l <"${work}/nodes.txt")"
[[ $((world % node_count)) -eq 0 ]] || fail "${world} ranks do not split over ${node_count} hosts"
gpus=$((world / node_count))
mapfile -t nodes <"${work}/nodes.txt"

# --- slurm.conf, daemons ------------------------------------------------------
# Ports: slurmctld, the default slurmd port (unused), one per node.
slurm_free_ports $((node_count + 2))
# Declared in reverse launch order, so that slurm.conf's order is not
# railyard's (Slurm sorts the names of a request anyway: srun(1) --nodefile).
# NodeHostName/NodeAddr: every slurmd runs on this machine. config_overrides
# keeps CPUs=G although the machine may have fewer cores.
node_gres=""
extra_lines=()
if [[ ${gpu_gres} -eq 1 ]]; then
  for ((g = 1; g < gpus; g++)); do
    mknod "${work}/dev/gpu${g}" c 1 3 || fail "mknod ${work}/dev/gpu${g} failed"
  done
  node_gres=" Gres=gpu:${gpus}"
  extra_lines+=("GresTypes=gpu")
  # gres.conf is read from the directory of slurm.conf. AutoDetect=off: the
  # devices are ours, not NVML's.
  printf 'AutoDetect=off\nName=gpu File=%s/dev/gpu[0-%d]\n' "${work}" $((gpus - 1)) \
    >"${work}/gres.conf"
fi
node_lines=()
for ((i = node_count - 1; i >= 0; i--)); do
  node_lines+=("NodeName=${nodes[i]} NodeHostName=localhost NodeAddr=127.0.0.1 Port=$((slurm_port + 2 + i)) CPUs=${gpus}${node_gres} State=UNKNOWN")
done
nodelist="$(scontrol show hostlist "$(IFS=,; echo "${nodes[*]}")")" ||
  fail "scontrol cannot compress ${nodes[*]}"
if [[ ${tree} -eq 1 ]]; then
  # topology.conf is read from the directory of slurm.conf.
  if ! "${railyard}" export --format slurm-tree --cluster "${spec}" --node-pattern "${pattern}" \
    >"${work}/topology.conf" 2>"${work}/export.err"; then
    cat "${work}/export.err" >&2
    fail "railyard export --format slurm-tree --cluster ${spec} --node-pattern ${pattern} failed"
  fi
  extra_lines+=("TopologyPlugin=topology/tree")
  # The rest of the cluster, 256 names per line, compressed by Slurm.
  mapfile -t others < <(awk 'NR == FNR { job[$1] = 1; next } !($2 in job) { print $2 }' \
    "${work}/nodes.txt" "${work}/names.txt")
  for ((i = 0; i < ${#others[@]}; i += 256)); do
    chunk="$(IFS=,; echo "${others[*]:i:256}")"
    expr="$(scontrol show hostlist "${chunk}")" || fail "scontrol cannot compress ${chunk}"
    extra_lines+=("NodeName=${expr} State=FUTURE CPUs=${gpus}")
  done
fi
slurm_write_conf "SlurmdParameters=config_overrides" "${extra_lines[@]}" "${node_lines[@]}" \
  "PartitionName=all Nodes=ALL Default=YES State=UP MaxTime=5"

slurm_start_munged
slurm_start_slurmctld
for node in "${nodes[@]}"; do slurm_start_slurmd "${node}"; done
slurm_wait_idle "${node_count}"
if [[ ${tree} -eq 1 ]]; then
  # The tree is loaded: every job node sits under a leaf-level switch.
  scontrol show topology >"${work}/topology.out" 2>&1 || fail "scontrol show topology failed"
  : >"${work}/leaf-nodes.txt"
  while IFS= read -r expr; do
    scontrol show hostnames "${expr}" >>"${work}/leaf-nodes.txt"
  done < <(awk '/Level=0/ { for (i = 1; i <= NF; i++) if ($i ~ /^Nodes=/) print substr($i, 7) }' \
    "${work}/topology.out")
  for node in "${nodes[@]}"; do
    leaf="$(grep -cx -- "${node}" "${work}/leaf-nodes.txt" || true)"
    [[ "${leaf}" -eq 1 ]] || fail "scontrol show topology puts ${node} under ${leaf} leaf switches, not 1"
  done
fi

# The task: where Slurm started it. World-readable: slurmstepd runs it as the
# submitting user.
cat >"${work}/task.sh" <<'EOF'
#!/bin/sh
echo "${SLURM_PROCID} ${SLURMD_NODENAME} ${SLURM_LOCALID} ${CUDA_VISIBLE_DEVICES:--}"
EOF
chmod 0755 "${work}/task.sh"
# The steps' GPU request.
gpu_args=()
[[ ${gpu_gres} -eq 1 ]] && gpu_args=(--gpus-per-task=1)

# compare <what> <expected> <actual-unsorted>
status=0
compare() {
  local what="$1" expected="$2" actual="$3"
  LC_ALL=C sort -n -k1,1 "${actual}" >"${actual}.sorted"
  if ! diff -u --label "railyard (rank node gpu gpu|-)" \
    --label "${what} (SLURM_PROCID SLURMD_NODENAME SLURM_LOCALID CUDA_VISIBLE_DEVICES)" \
    "${expected}" "${actual}.sorted" >"${actual}.diff"; then
    echo "${what}: tasks did not land where railyard put them:" >&2
    head -n 40 "${actual}.diff" >&2
    status=1
  fi
}

# run_srun <order>: srun allocates the nodes the file names and lays the
# tasks out in file order.
run_srun() {
  local order="$1"
  if ! SLURM_HOSTFILE="${work}/hostfile-${order}" timeout 60 \
    srun -n "${world}" --distribution=arbitrary "${gpu_args[@]}" --job-name="railyard-${order}" \
    "${work}/task.sh" >"${work}/srun-${order}.out" 2>"${work}/srun-${order}.err"; then
    cat "${work}/srun-${order}.err" >&2
    show_log "${work}/slurmctld.log"
    fail "srun -n ${world} --distribution=arbitrary with the ${order} hostfile failed"
  fi
  compare "srun, ${order} hostfile" "${work}/expected-${order}.txt" "${work}/srun-${order}.out"
}
run_srun railyard
run_srun naive

# Control: the same step without the file (block distribution over the nodes
# in slurm.conf order) must NOT match railyard's table, or the runs above
# prove nothing.
if ! timeout 60 srun -n "${world}" -N "${node_count}" -w "${nodelist}" "${gpu_args[@]}" \
  --job-name=railyard-control \
  "${work}/task.sh" >"${work}/srun-control.out" 2>"${work}/srun-control.err"; then
  cat "${work}/srun-control.err" >&2
  fail "srun -n ${world} -w ${nodelist} (no hostfile) failed"
fi
LC_ALL=C sort -n -k1,1 "${work}/srun-control.out" >"${work}/srun-control.sorted"
[[ "$(wc -l <"${work}/srun-control.sorted")" -eq "${world}" ]] ||
  fail "srun without a hostfile started $(wc -l <"${work}/srun-control.sorted") tasks, not ${world}"
# Placement only (rank node local-id): GPUs follow the local id either way.
if cmp -s <(cut -d' ' -f1-3 "${work}/expected-railyard.txt") \
  <(cut -d' ' -f1-3 "${work}/srun-control.sorted"); then
  fail "srun without SLURM_HOSTFILE already puts every rank where railyard does: the check cannot" \
    "tell whether srun follows the file"
fi
control_first="$(head -n 1 "${work}/srun-control.sorted")"

# In a batch allocation of the job's nodes (how a training job is submitted):
# the file orders the step's tasks within the allocation. Polled here rather
# than with `sbatch --wait`, whose poll interval starts at 2 s.
if ! jobid="$(sbatch --parsable -N "${node_count}" -w "${nodelist}" -n "${world}" "${gpu_args[@]}" \
  --job-name=railyard-batch --output="${work}/sbatch.out" --error="${work}/sbatch.err" \
  --wrap "SLURM_HOSTFILE='${work}/hostfile-railyard' srun -n ${world} -m arbitrary ${gpu_args[*]} '${work}/task.sh'" \
  2>"${work}/sbatch.submit.err")"; then
  cat "${work}/sbatch.submit.err" >&2
  fail "sbatch -N ${node_count} -w ${nodelist} was refused"
fi
jobid="${jobid%%;*}"
job_state=""
for _ in $(seq 1 300); do # 60 s
  job_state="$(scontrol -o show job "${jobid}" 2>/dev/null | tr ' ' '\n' | grep -E '^(JobState|ExitCode)=' | tr '\n' ' ')"
  [[ "${job_state}" == *JobState=PENDING* || "${job_state}" == *JobState=RUNNING* ||
    "${job_state}" == *JobState=CONFIGURING* || "${job_state}" == *JobState=COMPLETING* ||
    -z "${job_state}" ]] || break
  sleep 0.2
done
if [[ "${job_state}" != "JobState=COMPLETED ExitCode=0:0 " ]]; then
  cat "${work}/sbatch.err" >&2 2>/dev/null || true
  show_log "${work}/slurmctld.log"
  fail "batch job ${jobid} (srun -m arbitrary inside sbatch -N ${node_count} -w ${nodelist}): ${job_state:-no state}"
fi
compare "sbatch + srun, railyard hostfile" "${work}/expected-railyard.txt" "${work}/sbatch.out"

[[ ${status} -eq 0 ]] || fail "Slurm did not start the ranks where railyard put them (${plan} on ${hosts})"

first="$(head -n 1 "${work}/expected-railyard.txt")"
first_naive="$(head -n 1 "${work}/expected-naive.txt")"
if [[ ${gpu_gres} -eq 1 ]]; then
  gpu_note="GPU = SLURM_LOCALID = CUDA_VISIBLE_DEVICES (--gpus-per-task=1 on ${gpus} GRES GPUs per node)"
else
  gpu_note="GPU = SLURM_LOCALID only (no GRES GPUs: mknod needs root)"
fi
echo "PASSED: ${world} ranks on ${node_count} slurmd (${nodelist}, ${gpus} per node) where railyard put them," \
  "${gpu_note}:" \
  "srun and sbatch+srun with the railyard hostfile (rank ${first}), srun with the naive one (rank ${first_naive});" \
  "without a file srun puts rank ${control_first}" \
  "($(srun -V 2>/dev/null))"
