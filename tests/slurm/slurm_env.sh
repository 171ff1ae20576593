# shellcheck shell=bash
# Shared set-up for the tests/slurm checks: a private munged, slurmctld and
# (optionally) slurmd daemons on loopback, in a temporary directory that is
# removed on exit. Sourced, not run:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/slurm_env.sh"
#   slurm_require slurmctld scontrol munged      # exit 77 (SKIPPED) if missing
#   slurm_begin                                  # ${work}, SLURM_CONF, cleanup trap
#   slurm_free_ports 2                           # ${slurm_port} .. +1 free
#   slurm_write_conf "NodeName=... State=FUTURE" "PartitionName=..."
#   slurm_start_munged
#   slurm_start_slurmctld
#   slurm_start_slurmd node0001                  # one per NodeName (multiple slurmd)
#
# The caller sets `set -euo pipefail`. fail/skip/show_log print
# `FAILED: ...` / `SKIPPED: ...` (exit 1 / 77) and the tail of a log.
# RAILYARD_SLURM_KEEP=1 keeps the temporary directory (configs, logs).
#
# Only bash and coreutils: a fresh Debian 12 has no python3.

fail() {
  echo "FAILED: $*" >&2
  exit 1
}
skip() {
  echo "SKIPPED: $*"
  exit 77
}
# show_log <file>: the last lines of a log, on stderr.
show_log() {
  if [[ -s "$1" ]]; then
    echo "--- last lines of $1:" >&2
    tail -n 30 "$1" >&2
  fi
}

# slurm_require <tool>...: skip unless every tool is on PATH. Debian installs
# the daemons under /usr/sbin, which a non-root PATH may lack.
slurm_require() {
  PATH="${PATH}:/usr/sbin:/sbin"
  local tool missing=()
  for tool in "$@"; do
    command -v "${tool}" >/dev/null 2>&1 || missing+=("${tool}")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    local pkgs="slurmctld slurm-client munge"
    [[ " ${missing[*]} " == *" slurmd "* ]] && pkgs="slurmctld slurmd slurm-client munge"
    skip "${missing[*]} not installed (Debian: apt-get install ${pkgs})"
  fi
}

# Daemons this script started, stopped in reverse order on exit.
slurm_pids=()

# _slurm_stop <pid>: TERM, wait up to 5 s, then KILL.
_slurm_stop() {
  local pid="$1"
  kill -0 "${pid}" 2>/dev/null || return 0
  kill -TERM "${pid}" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "${pid}" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "${pid}" 2>/dev/null || true
  wait "${pid}" 2>/dev/null || true
}

_slurm_cleanup() {
  local rc=$?
  local i
  for ((i = ${#slurm_pids[@]} - 1; i >= 0; i--)); do
    _slurm_stop "${slurm_pids[i]}"
  done
  # munged daemonizes: its pid comes from its pid file.
  if [[ -s "${work}/munged.pid" ]]; then
    _slurm_stop "$(cat "${work}/munged.pid")"
  fi
  if [[ "${RAILYARD_SLURM_KEEP:-0}" == 1 ]]; then
    echo "kept ${work}" >&2
  else
    rm -rf "${work}"
  fi
  exit "${rc}"
}

# slurm_begin: a private directory ${work} (removed on exit with the daemons
# stopped), SLURM_CONF=${work}/slurm.conf, ${slurm_user}.
slurm_begin() {
  work="$(mktemp -d "${TMPDIR:-/tmp}/railyard-slurm.XXXXXX")"
  trap _slurm_cleanup EXIT
  trap 'exit 1' INT TERM HUP
  # munged wants the directory holding its socket to be searchable by everyone.
  chmod 0711 "${work}"
  mkdir -p "${work}/state" "${work}/spool"
  export SLURM_CONF="${work}/slurm.conf"
  slurm_user="$(id -un)"
  # Until slurm_write_conf, a two-line file lets scontrol expand hostlists.
  printf 'ClusterName=railyard\nSlurmctldHost=localhost\n' >"${SLURM_CONF}"
}

# slurm_free_ports <count>: ${slurm_port} such that slurm_port ..
# slurm_port+count-1 are free on loopback (bash's /dev/tcp connects if taken).
slurm_free_ports() {
  local count="$1" base try candidate k taken
  base=$((20000 + ($$ * 7) % 10000))
  slurm_port=""
  for try in $(seq 0 49); do
    candidate=$((base + try * count))
    taken=0
    for ((k = 0; k < count; k++)); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$((candidate + k))") 2>/dev/null; then
        taken=1
        break
      fi
    done
    if [[ ${taken} -eq 0 ]]; then
      slurm_port="${candidate}"
      return 0
    fi
  done
  fail "no ${count} free ports near ${base}"
}

# slurm_write_conf <line>...: slurm.conf with the common settings (slurmctld
# on ${slurm_port}, slurmd's default port ${slurm_port}+1, everything under
# ${work}, munge on its private socket, no cgroups) followed by the given
# lines (TopologyPlugin, NodeName, PartitionName, ...). Per-node paths use %n
# (the NodeName), so several slurmd can share the directory.
slurm_write_conf() {
  {
    cat <<EOF
# Written by railyard tests/slurm ($(basename "$0"))
ClusterName=railyard
SlurmctldHost=localhost
SlurmctldPort=${slurm_port}
SlurmdPort=$((slurm_port + 1))
AuthType=auth/munge
AuthInfo=socket=${work}/munge.socket
CredType=cred/munge
SlurmUser=${slurm_user}
SlurmdUser=${slurm_user}
StateSaveLocation=${work}/state
SlurmdSpoolDir=${work}/spool/%n
SlurmctldLogFile=${work}/slurmctld.log
SlurmdLogFile=${work}/slurmd-%n.log
SlurmctldPidFile=${work}/slurmctld.pid
SlurmdPidFile=${work}/slurmd-%n.pid
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
SelectType=select/cons_tres
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
EOF
    printf '%s\n' "$@"
  } >"${SLURM_CONF}"
}

# slurm_start_munged: its own key, socket, pid, log and seed files; it
# daemonizes once the socket is ready and refuses to start (non-zero exit)
# otherwise.
slurm_start_munged() {
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
}

# slurm_start_slurmctld: in the foreground of a background job (-D), with a
# clean state (-c); waits until `scontrol ping` says UP (30 s at most).
slurm_start_slurmctld() {
  slurmctld -D -c -f "${SLURM_CONF}" >"${work}/slurmctld.out" 2>&1 &
  local pid=$!
  slurm_pids+=("${pid}")
  for _ in $(seq 1 150); do
    if ! kill -0 "${pid}" 2>/dev/null; then
      show_log "${work}/slurmctld.out"
      fail "slurmctld exited during start-up"
    fi
    if scontrol ping 2>/dev/null | grep -q ' is UP'; then
      return 0
    fi
    sleep 0.2
  done
  show_log "${work}/slurmctld.log"
  fail "slurmctld did not answer scontrol ping within 30 s"
}

# slurm_start_slurmd <nodename>: one slurmd acting as that NodeName (-N), on
# the node's own Port= from slurm.conf. Several per host need Slurm built with
# --enable-multiple-slurmd (Debian's is: see docs/slurm.md).
slurm_start_slurmd() {
  local node="$1"
  mkdir -p "${work}/spool/${node}"
  slurmd -D -N "${node}" -f "${SLURM_CONF}" >"${work}/slurmd-${node}.out" 2>&1 &
  slurm_pids+=("$!")
}

# slurm_wait_idle <count>: wait until `sinfo` reports <count> nodes idle
# (their slurmd registered), 30 s at most.
slurm_wait_idle() {
  local want="$1" idle=0
  for _ in $(seq 1 150); do
    idle="$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)"
    [[ "${idle}" -ge "${want}" ]] && return 0
    sleep 0.2
  done
  sinfo -N -l >&2 || true
  show_log "${work}/slurmctld.log"
  fail "only ${idle} of ${want} nodes became idle within 30 s (slurmd did not register)"
}
