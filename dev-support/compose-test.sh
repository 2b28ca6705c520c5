#!/usr/bin/env bash
# The container set-up without a Docker daemon: runs the services of etc/fffs/docker/compose.yaml — a NameNode and
# three DataNodes, each with its arena on a tmpfs of its own — as the image would run them, each in a network
# namespace of its own on a bridge, with the service names resolving as Docker's DNS makes them resolve. Each
# service's `command` is run as written through the Dockerfile's ENTRYPOINT with its ENV, from the unpacked tarball;
# the container paths /opt/fffs, /data and /arena become the tarball, a directory and a tmpfs (of the compose file's
# size) per service. Then, from a client namespace: the compose file's `client` command, `admin -report` (each
# DataNode advertises its service name), a file written and read back; then every service is stopped with SIGTERM,
# as `docker compose stop` does, and must exit cleanly within its stop_grace_period.
#
#   dev-support/compose-test.sh [UNPACKED_TARBALL]   (default: fffs-dist/target/fffs-*.tar.gz unpacked; built
#                                                    when missing)
#
# What this does not test: `docker build` (the base image, the COPY lines — only checked to name directories the
# tarball has), Docker's volumes, port publishing, its DNS and its own tmpfs mounts. Needs root, `ip netns` and
# python3 with PyYAML. About a minute; dev-support/test.sh runs it after the build. Everything it made (namespaces,
# a bridge, /etc/netns/<namespace>/hosts, tmpfs mounts, processes) is removed even when it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
. dev-support/netns.sh

[ "$(id -u)" -eq 0 ] || { echo "compose-test.sh: needs root (network namespaces, tmpfs mounts)" >&2; exit 2; }
python3 -c 'import yaml' 2>/dev/null || { echo "compose-test.sh: needs python3 with PyYAML (python3-yaml)" >&2; exit 2; }

work="$(mktemp -d /tmp/fffs-compose-XXXXXX)"
home="$(dev-support/unpacked-dist.sh "$work" "${1:-}")" || { rm -rf "$work"; exit 2; }
java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"

id="$(printf '%04x' $((RANDOM)))"
subnet="10.$((100 + RANDOM % 150)).$((RANDOM % 250))"
bridge="fcb$id"
declare -A pid ip

cleanup() {
  set +e
  for s in "${!pid[@]}"; do kill -9 "${pid[$s]}" 2>/dev/null; done
  for ns in $(ip netns list | awk '{print $1}' | grep "^fcp$id-"); do
    ip netns pids "$ns" | xargs -r kill -9 2>/dev/null
    ip netns del "$ns"
    rm -rf "/etc/netns/$ns"
  done
  ip link del "$bridge" 2>/dev/null
  awk -v w="$work/" 'index($2, w) == 1 {print $2}' /proc/mounts | xargs -r -n1 umount
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "compose-test.sh: FAILED: $*" >&2; for s in "${!pid[@]}"; do tail -n 20 "$work/$s/out" >&2 2>/dev/null; done; exit 1; }

# The compose file and Dockerfile as the rest of the script uses them: one line per service (name, tmpfs target and
# size, command as NUL-free shell words), then the image's entrypoint and environment.
python3 - "$home/etc/fffs/docker/compose.yaml" "$home/etc/fffs/docker/Dockerfile" "$home" >"$work/plan" <<'EOF'
import os, shlex, sys, yaml
compose, dockerfile, home = sys.argv[1:4]
entrypoint, env = None, {}
for line in open(dockerfile):
    words = line.split()
    if not words or words[0].startswith('#'):
        continue
    if words[0] == 'COPY' and not os.path.isdir(os.path.join(home, words[1])):
        sys.exit(f'Dockerfile copies {words[1]}, which the tarball does not have')
    if words[0] == 'ENTRYPOINT':
        entrypoint = yaml.safe_load(line.split(None, 1)[1])
    if words[0] == 'ENV':
        for pair in words[1:]:
            key, value = pair.split('=', 1)
            env[key] = value
if entrypoint != ['/opt/fffs/bin/fffs']:
    sys.exit(f'unexpected ENTRYPOINT {entrypoint}')
print('env ' + ' '.join(shlex.quote(f'{k}={v}') for k, v in env.items()))
services = yaml.safe_load(open(compose))['services']
for name, service in services.items():
    tmpfs = (service.get('tmpfs') or ['-'])[0]
    target, _, size = tmpfs.partition(':size=')
    grace = str(service.get('stop_grace_period', '10s'))  # Docker's default
    seconds = int(grace[:-1]) * {'s': 1, 'm': 60}[grace[-1]]
    print(' '.join(['service', name, target, size or '0', str(seconds), service.get('hostname', name)]
                   + [shlex.quote(str(word)) for word in service['command']]))
EOF
[ -s "$work/plan" ] || fail "could not read the compose file and Dockerfile"

# Container paths to this service's: the image at the tarball, /data and /arena at directories of its own.
localize() { # SERVICE WORD
  local w="$2"
  w="${w//\/opt\/fffs/$home}"
  w="${w//\/arena/$work/$1/arena}"
  w="${w//\/data/$work/$1/data}"
  printf '%s' "$w"
}

netns_bridge "$bridge" "$subnet"
n=10
hosts="127.0.0.1 localhost"$'\n'
services=()
while read -r kind name _; do
  [ "$kind" = service ] || continue
  n=$((n + 1))
  ip[$name]="$subnet.$n"
  hosts+="$subnet.$n $name"$'\n'
  services+=("$name")
done <"$work/plan"
services+=(probe)
ip[probe]="$subnet.$((n + 1))"
hosts+="${ip[probe]} probe"$'\n'
i=0
for s in "${services[@]}"; do
  i=$((i + 1))
  ns="fcp$id-$s"
  netns_join "$ns" "$bridge" "fch$id$i" "fcn$id$i" "${ip[$s]}"
  # `ip netns exec` puts /etc/netns/NS/hosts over /etc/hosts: the service names resolve as on Docker's network.
  mkdir -p "/etc/netns/$ns"
  printf '%s' "$hosts" >"/etc/netns/$ns/hosts"
  mkdir -p "$work/$s/data"
done

image_env=()
while read -r kind rest; do
  [ "$kind" = env ] && eval "image_env=($rest)"
done <"$work/plan"

declare -A grace
while read -r kind name target size seconds hostname command; do
  [ "$kind" = service ] || continue
  [ "$name" = client ] && { echo "$command" >"$work/client-command"; continue; }
  grace[$name]="$seconds"
  if [ "$target" != "-" ]; then
    mkdir -p "$work/$name${target}"
    mount -t tmpfs -o "size=$size" tmpfs "$work/$name${target}"
  fi
  eval "words=($command)"
  args=()
  for w in "${words[@]}"; do args+=("$(localize "$name" "$w")"); done
  env_args=()
  for e in "${image_env[@]}"; do env_args+=("$(localize "$name" "$e")"); done
  mkdir -p "$work/$name/data/logs"
  # Its own host name, as a container has (the JVM looks itself up by it).
  ip netns exec "fcp$id-$name" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$hostname" \
    env "${env_args[@]}" JAVA_HOME="$java_home" FFFS_HEAPSIZE=256m "$home/bin/fffs" "${args[@]}" \
    >"$work/$name/out" 2>&1 &
  pid[$name]=$!
done <"$work/plan"

echo "compose-test.sh: services started, waiting for 3 DataNodes" >&2
probe() { ip netns exec "fcp$id-probe" unshare --uts sh -c 'hostname probe && exec "$@"' sh env JAVA_HOME="$java_home" FFFS_HEAPSIZE=256m "$home/bin/fffs" "$@"; }
report=""
deadline=$((SECONDS + 300))
while [ "$SECONDS" -lt "$deadline" ]; do
  report="$(probe admin -D fs.defaultFS=fffs://namenode:8020 -report 2>&1 || true)"
  grep -q "Live datanodes (3)" <<<"$report" && break
  for s in "${!pid[@]}"; do kill -0 "${pid[$s]}" 2>/dev/null || fail "$s exited"; done
  sleep 1
done
grep -q "Live datanodes (3)" <<<"$report" || fail "three DataNodes did not register: $report"
for dn in dn1 dn2 dn3; do
  grep -q "Name: $dn:50010" <<<"$report" || fail "$dn does not advertise its service name: $report"
  grep -q "HTTP: http://$dn:9864/" <<<"$report" || fail "$dn's page is not at its service name: $report"
done

eval "client=($(cat "$work/client-command"))"
probe "${client[@]}" >/dev/null || fail "the client service's command: ${client[*]}"
head -c 3000000 /dev/urandom >"$work/in"
probe dfs -fs fffs://namenode:8020 -put "$work/in" /compose-test || fail "put"
probe dfs -fs fffs://namenode:8020 -cat /compose-test >"$work/out" || fail "cat"
cmp -s "$work/in" "$work/out" || fail "the file read back differs"
probe fsck -D fs.defaultFS=fffs://namenode:8020 /compose-test | grep -q HEALTHY || fail "fsck of the file"

# docker compose stop: SIGTERM, then the service's stop_grace_period (10 s unless set) before SIGKILL; DataNodes
# first, as compose stops dependants first.
for s in dn1 dn2 dn3 namenode; do
  kill -TERM "${pid[$s]}"
  for _ in $(seq 1 $((10 * grace[$s]))); do kill -0 "${pid[$s]}" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "${pid[$s]}" 2>/dev/null; then fail "$s still runs ${grace[$s]} s after SIGTERM"; fi
  wait "${pid[$s]}" || true
  grep -q "ERROR" "$work/$s/out" && fail "$s logged an error: $(grep -m3 ERROR "$work/$s/out")"
  unset "pid[$s]"
done
for s in "${services[@]}"; do
  [ -z "$(ip netns pids "fcp$id-$s")" ] || fail "a process is left in $s's namespace"
done
echo "compose-test.sh: PASSED (compose services in namespaces: 3 DataNodes registered under their service names," \
  "client command, put/cat/fsck, stopped by SIGTERM within each grace period)"
