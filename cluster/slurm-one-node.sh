#!/usr/bin/env bash
# A one-node SLURM cluster on this Debian machine, for testing the workflow's SLURM profile
# (controller and compute node on the same host, controller on the loopback name `localhost`).
#
#   sudo bash cluster/slurm-one-node.sh           # install (apt), configure, start, wait until idle
#   sudo bash cluster/slurm-one-node.sh --status  # daemons and node state
#   sudo bash cluster/slurm-one-node.sh --stop    # stop slurmd, slurmctld and munged
#
# Idempotent: a second run installs nothing, keeps a running cluster whose configuration has
# not changed, and restarts the daemons only when /etc/slurm/slurm.conf changes.
# No systemd is needed or used: the daemons are started directly (containers, CI runners).
# No cgroups, no accounting database (slurmdbd): job status comes from squeue, hence
# MinJobAge=300 (finished jobs stay visible to squeue for 5 minutes).
# Settings from the environment: SLURM_CLUSTER_NAME (default sdcrisk), SLURM_PARTITION
# (default debug), SLURM_WAIT (seconds to wait for the node, default 60).
set -euo pipefail

CLUSTER_NAME="${SLURM_CLUSTER_NAME:-sdcrisk}"
PARTITION="${SLURM_PARTITION:-debug}"
WAIT="${SLURM_WAIT:-60}"
CONF=/etc/slurm/slurm.conf
MARK="# Written by cluster/slurm-one-node.sh"
PACKAGES=(munge slurm-client slurmctld slurmd)
CTLD_PID=/run/slurmctld.pid
SLURMD_PID=/run/slurmd.pid
MUNGE_PID=/run/munge/munged.pid

say() { echo "slurm-one-node: $*"; }
die() { echo "slurm-one-node: ERROR: $*" >&2; exit 1; }

# pid from a pid file if that process is alive and is the named program, else nothing
live_pid() {
  local file=$1 name=$2 pid
  [ -r "$file" ] || return 1
  pid=$(tr -dc '0-9' < "$file")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  grep -q "$name" "/proc/$pid/comm" 2>/dev/null || grep -qa "$name" "/proc/$pid/cmdline" 2>/dev/null || return 1
  echo "$pid"
}

stop_daemon() {
  local file=$1 name=$2 pid
  if pid=$(live_pid "$file" "$name"); then
    kill -TERM "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    say "stopped $name (pid $pid)"
  else
    say "$name is not running"
  fi
  rm -f "$file"
}

# node state as sinfo prints it; a trailing flag (idle*: not responding, ...) means not usable yet
node_state() { sinfo --noheader --Node --format='%T' 2>/dev/null | head -n1 || true; }

status() {
  local file name pid
  while read -r file name; do
    if pid=$(live_pid "$file" "$name"); then say "$name running (pid $pid)"; else say "$name not running"; fi
  done <<EOF
$MUNGE_PID munged
$CTLD_PID slurmctld
$SLURMD_PID slurmd
EOF
  if command -v sinfo >/dev/null; then sinfo 2>&1 | sed 's/^/  /' || true; fi
}

case "${1:-}" in
  --stop)
    stop_daemon "$SLURMD_PID" slurmd
    stop_daemon "$CTLD_PID" slurmctld
    stop_daemon "$MUNGE_PID" munged
    say "cluster stopped (configuration and packages kept; start again with: bash $0)"
    exit 0 ;;
  --status) status; exit 0 ;;
  ""|--start) ;;
  -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) die "unknown option '$1' (use --stop, --status or no option)" ;;
esac

[ "$(id -u)" -eq 0 ] || die "run as root (apt-get, /etc/slurm, daemons)"
[ -r /etc/debian_version ] || die "this script is for Debian (apt-get and the Debian slurm packages)"
if [ -d /run/systemd/system ]; then
  say "note: systemd is running here; the daemons are nevertheless started directly, not as units"
fi

# 1. packages (apt-get only when one is missing)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt_install() { apt-get install -y -q --no-install-recommends -o Dpkg::Options::=--force-confold "${missing[@]}"; }
  apt_install >/tmp/slurm-one-node-apt.log 2>&1 || {
    apt-get update -q >>/tmp/slurm-one-node-apt.log 2>&1 && apt_install >>/tmp/slurm-one-node-apt.log 2>&1
  } || { tail -n 20 /tmp/slurm-one-node-apt.log >&2; die "apt-get install ${missing[*]} failed (log: /tmp/slurm-one-node-apt.log)"; }
fi
SLURM_VERSION=$(slurmd -V | awk '{print $2}')

# 2. munge: a key, then munged (as user munge, like Debian's init script)
if [ ! -s /etc/munge/munge.key ]; then
  say "creating /etc/munge/munge.key"
  install -d -m 0700 -o munge -g munge /etc/munge
  if command -v mungekey >/dev/null; then
    mungekey --create --keyfile=/etc/munge/munge.key --force
  else
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
  fi
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
  # a running munged still holds the old key
  if live_pid "$MUNGE_PID" munged >/dev/null; then stop_daemon "$MUNGE_PID" munged; fi
fi
install -d -m 0755 -o munge -g munge /run/munge
install -d -m 0700 -o munge -g munge /var/lib/munge /var/log/munge
if ! live_pid "$MUNGE_PID" munged >/dev/null; then
  rm -f "$MUNGE_PID"
  runuser -u munge -- /usr/sbin/munged
  say "started munged"
fi
for _ in $(seq 1 25); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.2; done
munge -n | unmunge >/dev/null || die "munge does not work (see /var/log/munge/munged.log)"

# 3. slurm.conf: the node line from `slurmd -C`, everything else for one loopback node
NODE_LINE=$(slurmd -C | head -n1)
case "$NODE_LINE" in NodeName=*) ;; *) die "unexpected output of 'slurmd -C': $NODE_LINE" ;; esac
NODE=${NODE_LINE%% *}
NODE=${NODE#NodeName=}
CPUS=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$NODE_LINE")
new=$(mktemp)
trap 'rm -f "$new"' EXIT
cat >"$new" <<EOF
$MARK (slurm $SLURM_VERSION); rerun it to regenerate.
# One node, controller on loopback, no cgroups, no accounting database.
ClusterName=$CLUSTER_NAME
SlurmctldHost=localhost
SlurmUser=slurm
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=$CTLD_PID
SlurmdPidFile=$SLURMD_PID
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
# finished jobs stay visible to squeue for 5 minutes (Snakemake polls squeue, there is no sacct)
MinJobAge=300
ReturnToService=2
InactiveLimit=0
KillWait=30
Waittime=0
# a job without --mem gets 1 GB per CPU, not the whole node, so that jobs share the node
DefMemPerCPU=1000
$NODE_LINE NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=$PARTITION Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
changed=0
if [ ! -f "$CONF" ] || ! cmp -s "$new" "$CONF"; then
  if [ -f "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
    cp -p "$CONF" "$CONF.orig.$(date +%Y%m%d%H%M%S)"
    say "kept the previous $CONF as $CONF.orig.*"
  fi
  install -m 0644 "$new" "$CONF"
  changed=1
  say "wrote $CONF ($NODE_LINE; partition $PARTITION)"
fi
install -d -m 0755 -o slurm -g slurm /var/spool/slurmctld /var/log/slurm
install -d -m 0755 /var/spool/slurmd

# 4. daemons (restarted only when the configuration changed)
if [ "$changed" = 1 ]; then
  live_pid "$SLURMD_PID" slurmd >/dev/null && stop_daemon "$SLURMD_PID" slurmd
  live_pid "$CTLD_PID" slurmctld >/dev/null && stop_daemon "$CTLD_PID" slurmctld
fi
if ! live_pid "$CTLD_PID" slurmctld >/dev/null; then
  rm -f "$CTLD_PID"
  /usr/sbin/slurmctld || die "slurmctld did not start (see /var/log/slurm/slurmctld.log)"
  say "started slurmctld"
fi
for _ in $(seq 1 50); do scontrol ping 2>/dev/null | grep -q 'is UP' && break; sleep 0.2; done
scontrol ping 2>/dev/null | grep -q 'is UP' || { tail -n 20 /var/log/slurm/slurmctld.log >&2 || true; die "slurmctld does not answer"; }
if ! live_pid "$SLURMD_PID" slurmd >/dev/null; then
  rm -f "$SLURMD_PID"
  /usr/sbin/slurmd || die "slurmd did not start (see /var/log/slurm/slurmd.log)"
  say "started slurmd"
fi

# 5. wait until the node takes jobs
state=""
for _ in $(seq 1 "$((WAIT * 2))"); do
  state=$(node_state)
  case "$state" in
    idle|mixed|allocated|completing) break ;;
    down*|drain*|fail*)
      scontrol update NodeName="$NODE" State=RESUME >/dev/null 2>&1 || true ;;
  esac
  sleep 0.5
done
case "$state" in
  idle|mixed|allocated|completing) ;;
  *) sinfo -N -l >&2 || true; tail -n 20 /var/log/slurm/slurmd.log >&2 || true
     die "node $NODE is '${state:-unknown}' after ${WAIT}s" ;;
esac
say "SLURM $SLURM_VERSION cluster '$CLUSTER_NAME' is up: node $NODE ($CPUS CPUs) is $state in partition '$PARTITION' (default)."
say "try: srun hostname; stop with: bash $0 --stop"
