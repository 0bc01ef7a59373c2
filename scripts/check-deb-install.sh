#!/bin/bash
# The package's install and purge on this machine, by hand (root; not part of npm test: it
# installs a package and makes the system user fwd, state a shared machine keeps):
#
#   npm run package && sudo bash scripts/check-deb-install.sh ./fwd_*.deb
#
# 1. apt install ./fwd_*.deb: the user fwd, /etc/fwd (root:fwd), fwd.env a conffile (0640),
#    secrets.env (0640, made once), /var/lib/fwd (fwd:fwd 0750), the unit.
# 2. The daemon started as fwd.service starts it, without systemctl (this machine has no
#    systemd as PID 1): user fwd, the unit's ambient capabilities and no others (setpriv), the
#    unit's environment and its two environment files, enforcing in a scratch network
#    namespace (FW_NETNS, with CAP_SYS_ADMIN as the netns.conf drop-in gives), not on this
#    host. It must answer /readyz 200 and a login with the password of secrets.env.
# 3. apt purge fwd: no file of the package, no /etc/fwd, no /var/lib/fwd, no user or group
#    fwd, no file owned by its uid left in /etc, /var, /usr, /run or /tmp.
# Its output is the transcript recorded in docs/operations.md.
set -euo pipefail

deb=${1:?usage: check-deb-install.sh ./fwd_VERSION_ARCH.deb}
if dpkg-query -W -f='${Status}' fwd 2>/dev/null | grep -q installed || getent passwd fwd >/dev/null; then
  echo "fwd is installed or the user fwd exists already: not touching them" >&2
  exit 1
fi
ns="fwdcheck-$$"
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  ip netns delete "$ns" 2>/dev/null || true
}
trap cleanup EXIT
step() { printf '\n$ %s\n' "$*"; }

step apt-get install -y "$deb"
NEEDRESTART_MODE=l DEBIAN_FRONTEND=noninteractive apt-get install -y "$deb" 2>&1 | grep -v -E '^(Reading|Building|Selecting|Preparing|\(Reading)' || true
step getent passwd fwd
getent passwd fwd
uid=$(id -u fwd)
step stat -c '%A %U:%G %n' /etc/fwd /etc/fwd/fwd.env /etc/fwd/secrets.env /var/lib/fwd /lib/systemd/system/fwd.service /usr/bin/fwd /usr/bin/fwctl
stat -c '%A %U:%G %n' /etc/fwd /etc/fwd/fwd.env /etc/fwd/secrets.env /var/lib/fwd /lib/systemd/system/fwd.service /usr/bin/fwd /usr/bin/fwctl
step "dpkg-query -W -f='\${Conffiles}' fwd"
dpkg-query -W -f='${Conffiles}\n' fwd
step "sed 's/=.*/=(set)/' /etc/fwd/secrets.env   # the values are not shown"
sed 's/=.*/=(set)/' /etc/fwd/secrets.env

step "ip netns add $ns; the daemon as the unit starts it (setpriv, user fwd, ambient caps), FW_NETNS=$ns"
ip netns add "$ns"
ip -n "$ns" link set lo up
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
caps=+net_admin,+net_raw,+net_bind_service,+sys_admin
(
  set -a
  FW_DATA_DIR=/var/lib/fwd FW_ENV_FILE=/etc/fwd/fwd.env FW_HELPERS_ON_STOP=keep
  . /etc/fwd/fwd.env
  . /etc/fwd/secrets.env
  FW_NETNS=$ns FW_PORT=$port FW_INTERFACES=lo
  set +a
  cd /
  exec setpriv --reuid=fwd --regid=fwd --init-groups --inh-caps=-all,$caps --ambient-caps=-all,$caps \
    --bounding-set=-all,$caps --no-new-privs /usr/bin/fwd
) > /tmp/"$ns".log 2>&1 &
pid=$!
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.5
done
step curl "http://127.0.0.1:$port/readyz"
curl -s "http://127.0.0.1:$port/readyz"; echo
password=$(sed -n 's/^FW_ADMIN_PASSWORD=//p' /etc/fwd/secrets.env)
step "curl -X POST /api/login (admin, the password of secrets.env) -> HTTP status"
curl -s -o /dev/null -w '%{http_code}\n' -X POST "http://127.0.0.1:$port/api/login" -H 'Content-Type: application/json' \
  --data "{\"username\":\"admin\",\"password\":\"$password\"}"
step "ps -o user,cmd -p $pid (the daemon's user)"
ps -o user=,cmd= --ppid "$pid" -p "$pid" | head -3
step "grep Cap /proc/<daemon>/status"
grep -E '^Cap(Eff|Amb|Bnd)' "/proc/$(pgrep -u fwd -f 'lib/fwd/dist/src/main.js' | head -1)/status"
step "ip netns exec $ns nft list tables"
ip netns exec "$ns" nft list tables
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
sleep 1

step apt-get purge -y fwd
NEEDRESTART_MODE=l DEBIAN_FRONTEND=noninteractive apt-get purge -y fwd 2>&1 | grep -v -E '^(Reading|Building|\(Reading)' || true
step "dpkg-query -W fwd; getent passwd fwd; getent group fwd; ls /etc/fwd /var/lib/fwd /usr/lib/fwd"
dpkg-query -W -f='${Status}\n' fwd 2>&1 || true
getent passwd fwd || echo "no user fwd"
getent group fwd || echo "no group fwd"
ls -d /etc/fwd /var/lib/fwd /usr/lib/fwd /lib/systemd/system/fwd.service 2>&1 || true
step "find /etc /var /usr /run /tmp -xdev -uid $uid"
left=$(find /etc /var /usr /run /tmp -xdev -uid "$uid" 2>/dev/null | head -5 || true)   # find may meet files that vanish
echo "${left:-nothing}"
rm -f /tmp/"$ns".log
[ -z "$left" ]
