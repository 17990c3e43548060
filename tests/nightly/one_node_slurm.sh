#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the tests: sourced, it defines
#   slurm_start DIR   writes a munge key and a slurm.conf under DIR (this machine as the one node,
#                     8 CPUs whatever it has, so that 4 shards and their merge run at once), starts
#                     munged, slurmctld and slurmd in the foreground as background jobs of this
#                     shell, records their process ids, exports SLURM_CONF for sbatch & co., and
#                     waits until the node is idle. Returns 1, saying why, when it cannot.
#   slurm_stop        stops the three by the process ids it recorded (never by name), and waits.
# Debian 12's slurm-wlm and munge (scripts/setup.sh installs them). Runs as root (slurmd starts the
# jobs' steps) or as a user whose jobs it runs as that user.
slurm_pids=()

slurm_wait_for() {  # seconds, a command: until the command succeeds
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

slurm_start() {
  local dir=$1 user node port
  user=$(id -un)
  node=cpnode
  # Ports of our own, away from a real Slurm's 6817/6818 and from another test's.
  port=$((20000 + ($$ % 2000) * 2))
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
  chmod 711 "$dir/munge"  # munged: clients need to reach the socket, not list the folder
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 600 "$dir/munge/munge.key"
  cat >"$dir/slurm.conf" <<CONF
ClusterName=convparity-test
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
KillWait=10
MinJobAge=600
NodeName=$node NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=8 RealMemory=2000 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$dir/slurm.conf
  /usr/sbin/munged --foreground --force --key-file="$dir/munge/munge.key" \
    --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" >>"$dir/log/munged.out" 2>&1 &
  slurm_pids+=($!)
  if ! slurm_wait_for 20 test -S "$dir/munge/munge.socket"; then
    echo "munged did not start: $(tail -n 3 "$dir/log/munged.log" 2>/dev/null)"
    return 1
  fi
  /usr/sbin/slurmctld -D -f "$dir/slurm.conf" -i >>"$dir/log/slurmctld.out" 2>&1 &
  slurm_pids+=($!)
  /usr/sbin/slurmd -D -f "$dir/slurm.conf" -N "$node" >>"$dir/log/slurmd.out" 2>&1 &
  slurm_pids+=($!)
  if ! slurm_wait_for 60 bash -c "sinfo -h -n $node -o %T | grep -qx idle"; then
    echo "the node did not come up: $(sinfo -h -o '%N %T %E' 2>&1 | head -n 2);" \
      "slurmctld: $(tail -n 2 "$dir/log/slurmctld.log" 2>/dev/null);" \
      "slurmd: $(tail -n 2 "$dir/log/slurmd.log" 2>/dev/null)"
    return 1
  fi
}

slurm_stop() {
  local i
  # In reverse: slurmd, slurmctld, then munged, which the others talk to until they are gone.
  for ((i = ${#slurm_pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${slurm_pids[i]}" 2>/dev/null
    wait "${slurm_pids[i]}" 2>/dev/null
  done
  slurm_pids=()
}
