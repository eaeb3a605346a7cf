#!/bin/bash
# One-node Slurm cluster (Debian slurm-wlm + munge, no systemd) for
# scripts/slurm-em.sh: install, configure and start slurmctld and slurmd on
# localhost, then check a 2-task job array. Idempotent: re-running reuses the
# running daemons (PID files) and rewrites the configuration. Needs root
# (or sudo) and apt-get. About 15 s from nothing on a Debian 12 machine.
#
#   scripts/slurm-one-node.sh          # install, start, test
#   scripts/slurm-one-node.sh --stop   # stop the daemons it started
#
# Adapted from a recipe for these machines (/work/shared/tools).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
T0=$(date +%s)
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"

if [ "${1:-}" = "--stop" ]; then
  for p in /run/slurm/slurmd.pid /run/slurm/slurmctld.pid /run/munge/munged.pid; do
    [ -s "$p" ] && $SUDO kill "$($SUDO cat "$p")" 2>/dev/null && echo "stopped $(basename "$p" .pid)"
  done
  exit 0
fi

if [ -n "$SUDO" ]; then exec sudo "$0" "$@"; fi

# 1. Install (wait for any foreign apt/dpkg lock holder)
while pgrep -x apt-get >/dev/null || pgrep -x apt >/dev/null || pgrep -x dpkg >/dev/null; do
  echo "waiting for apt/dpkg lock..."; sleep 20
done
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  apt-get install -y slurm-wlm munge || { apt-get update && apt-get install -y slurm-wlm munge; }
fi

# 2. Munge key + munged
install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
install -d -o munge -g munge -m 0755 /run/munge
if [ ! -s /etc/munge/munge.key ]; then
  /usr/sbin/mungekey --create --keyfile=/etc/munge/munge.key
  chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key
fi
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  rm -f /run/munge/munged.pid /run/munge/munge.socket.2*
  su -s /bin/sh munge -c /usr/sbin/munged      # daemonizes; writes /run/munge/munged.pid
  sleep 1
fi
munge -n | unmunge | grep -q 'STATUS: *Success'

# 3. slurm.conf
HOST=$(hostname -s)
MEM=$(free -m | awk '/^Mem:/{print $2}')
MEM=$(( MEM * 9 / 10 ))   # leave headroom so the node is not drained for low memory
install -d -o slurm -g slurm -m 0755 /var/spool/slurmctld /var/log/slurm /run/slurm
install -d -o root  -g root  -m 0755 /var/spool/slurmd
cat > /etc/slurm/slurm.conf <<EOF
ClusterName=local
SlurmctldHost=${HOST}
SlurmUser=slurm
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeName=${HOST} NodeAddr=127.0.0.1 CPUs=2 RealMemory=${MEM} State=UNKNOWN
PartitionName=debug Nodes=${HOST} Default=YES MaxTime=INFINITE State=UP
EOF

# 4. Start daemons (daemon mode, PID files); skip if already alive
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
if alive /run/slurm/slurmctld.pid; then scontrol reconfigure || true
else /usr/sbin/slurmctld; fi          # add -c for a clean state
alive /run/slurm/slurmd.pid || /usr/sbin/slurmd
for i in $(seq 30); do sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|alloc)' && break; sleep 1; done
sinfo
echo "setup took $(( $(date +%s) - T0 ))s"

# 5. Test: a job array of 2
OUT=$(mktemp -d); chmod 0777 "$OUT"
JOB=$(sbatch --parsable -o /dev/null --array=0-1 --wrap "echo \$SLURM_ARRAY_TASK_ID > $OUT/task.\$SLURM_ARRAY_TASK_ID")
echo "submitted array job $JOB"
for i in $(seq 60); do [ "$(ls "$OUT"/task.* 2>/dev/null | wc -l)" -eq 2 ] && break; sleep 1; done
for f in "$OUT"/task.{0..1}; do printf '%s: %s\n' "$f" "$(cat "$f")"; done
echo "total $(( $(date +%s) - T0 ))s"
rm -rf "$OUT"
echo "stop with: $0 --stop"
