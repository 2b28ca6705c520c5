#!/usr/bin/env bash
# bin/fffs cluster start|status|stop over real ssh: the NameNode in this host's network namespace, and two
# "workers", each a network namespace of its own on a bridge with its own address and its own sshd, listed in a
# workers file. The script starts the cluster with `bin/fffs cluster start`, waits for both DataNodes, writes and
# reads a file through them, checks `cluster status`, stops with `cluster stop` and checks that every daemon is gone.
#
#   dev-support/cluster-ssh-test.sh [UNPACKED_TARBALL]   (default: fffs-dist/target/fffs-*.tar.gz unpacked; built
#                                                         when missing)
#
# Needs root and `ip netns`; installs openssh-server when sshd is missing. About a minute; dev-support/test.sh runs
# it after the build. Namespaces, bridge, sshds, daemons and directories are removed even when it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
. dev-support/netns.sh

[ "$(id -u)" -eq 0 ] || { echo "cluster-ssh-test.sh: needs root (network namespaces, sshd)" >&2; exit 2; }
if [ ! -x /usr/sbin/sshd ]; then
  echo "cluster-ssh-test.sh: installing openssh-server" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server >&2
fi

work="$(mktemp -d /tmp/fffs-ssh-XXXXXX)"
home="$(dev-support/unpacked-dist.sh "$work" "${1:-}")" || { rm -rf "$work"; exit 2; }

id="$(printf '%04x' $((RANDOM)))"
subnet="10.$((100 + RANDOM % 150)).$((RANDOM % 250))"
bridge="fsb$id"
conf="$work/conf"
nn_port=$((20000 + RANDOM % 20000))
workers=(1 2)

cleanup() {
  set +e
  FFFS_CONF_DIR="$conf" FFFS_SSH_OPTS="$ssh_opts" timeout 120 "$home/bin/fffs" cluster stop >/dev/null 2>&1
  for n in "${workers[@]}"; do
    [ -f "$work/sshd-$n.pid" ] && kill "$(cat "$work/sshd-$n.pid")" 2>/dev/null
    ip netns pids "fss$id-$n" 2>/dev/null | xargs -r kill -9 2>/dev/null
    ip netns del "fss$id-$n" 2>/dev/null
    rm -rf "/dev/shm/fffs-ssh-$id-dn$n"
  done
  ip link del "$bridge" 2>/dev/null
  rm -rf "$work"
}
ssh_opts="-i $work/key -o BatchMode=yes -o ConnectTimeout=10 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
trap cleanup EXIT

mkdir -p "$conf" /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$work/key"
ssh-keygen -q -t ed25519 -N '' -f "$work/hostkey"
cp "$work/key.pub" "$work/authorized_keys"

netns_bridge "$bridge" "$subnet"
for n in "${workers[@]}"; do
  ns="fss$id-$n"
  netns_join "$ns" "$bridge" "fsh$id$n" "fsn$id$n" "$subnet.$((10 + n))"
  # Each worker's sshd tells its sessions who they are: the conf names its directories and address by them.
  cat >"$work/sshd-$n.conf" <<EOF
ListenAddress $subnet.$((10 + n))
Port 22
HostKey $work/hostkey
AuthorizedKeysFile $work/authorized_keys
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PidFile $work/sshd-$n.pid
SetEnv FFFS_NODE=dn$n FFFS_NODE_IP=$subnet.$((10 + n))
EOF
  ip netns exec "$ns" /usr/sbin/sshd -f "$work/sshd-$n.conf"
  echo "$subnet.$((10 + n))" >>"$conf/workers"
done

cp "$home/etc/fffs/log4j.properties" "$conf/" 2>/dev/null || true
cat >"$conf/fffs-env.sh" <<EOF
export JAVA_HOME="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
export FFFS_PID_DIR="$work/\${FFFS_NODE:-nn}/pid" FFFS_LOG_DIR="$work/\${FFFS_NODE:-nn}/log"
export FFFS_HEAPSIZE=256m FFFS_STOP_TIMEOUT=60
EOF
cat >"$conf/fffs-site.xml" <<EOF
<configuration>
  <property><name>fffs.namenode.rpc-address</name><value>$subnet.1:$nn_port</value></property>
  <property><name>fffs.namenode.rpc-bind-host</name><value>$subnet.1</value></property>
  <property><name>fffs.namenode.http-address</name><value>$subnet.1:$((nn_port + 1))</value></property>
  <property><name>fffs.namenode.name.dir</name><value>$work/nn/name</value></property>
  <property><name>fffs.namenode.safemode.timeout</name><value>5s</value></property>
  <property><name>fffs.datanode.heartbeat.interval</name><value>500ms</value></property>
  <property><name>fffs.datanode.data-address</name><value>0.0.0.0:50010</value></property>
  <property><name>fffs.datanode.http-address</name><value>0.0.0.0:9864</value></property>
  <property><name>fffs.datanode.hostname</name><value>\${env.FFFS_NODE_IP}</value></property>
  <property><name>fffs.datanode.memory.dir</name><value>/dev/shm/fffs-ssh-$id-\${env.FFFS_NODE}</value></property>
  <property><name>fffs.datanode.memory.capacity</name><value>64m</value></property>
  <property><name>fffs.datanode.data.dir</name><value>$work/\${env.FFFS_NODE}/data</value></property>
</configuration>
EOF
cat >"$conf/core-site.xml" <<EOF
<configuration>
  <property><name>fs.defaultFS</name><value>fffs://$subnet.1:$nn_port</value></property>
</configuration>
EOF

fffs() { FFFS_CONF_DIR="$conf" FFFS_SSH_OPTS="$ssh_opts" "$home/bin/fffs" "$@"; }
fail() { echo "cluster-ssh-test.sh: FAILED: $*" >&2; exit 1; }

fffs cluster start || fail "cluster start"
for _ in $(seq 1 120); do
  fffs admin -report 2>/dev/null | grep -q "Live datanodes (2)" && break
  sleep 0.5
done
report="$(fffs admin -report)"
grep -q "Live datanodes (2)" <<<"$report" || fail "two DataNodes did not register: $report"
for n in "${workers[@]}"; do
  grep -q "Name: $subnet.$((10 + n)):50010" <<<"$report" || fail "DataNode $n not at its own address: $report"
done

head -c 300000 /dev/urandom >"$work/in"
fffs dfs -put "$work/in" /ssh-test || fail "put"
fffs dfs -cat /ssh-test >"$work/out" || fail "cat"
cmp -s "$work/in" "$work/out" || fail "the file read back differs"
fffs cluster status || fail "cluster status of a running cluster"

fffs cluster stop || fail "cluster stop"
if fffs cluster status >/dev/null 2>&1; then fail "cluster status after stop says running"; fi
for n in "${workers[@]}"; do
  [ -z "$(ip netns pids "fss$id-$n" | grep -v "$(cat "$work/sshd-$n.pid")" || true)" ] \
    || fail "a process other than sshd is left in worker $n"
done
echo "cluster-ssh-test.sh: PASSED (cluster start, status, put/cat over 2 DataNodes on ssh workers, stop)"
