// The services of an HA pair (issue 39, item 4): DHCP and router advertisements are served by
// the master alone. On a node of an enabled pair dnsmasq is not the daemon's HelperProcess: a
// script (ha-services.sh, generated here) runs it when the VRRP state recorded by keepalived's
// notify script is MASTER and ends it otherwise. keepalived's notify runs the script at each
// transition, so a takeover starts DHCP on the new master without the daemon (item 6: the
// daemon may be dead then); the daemon runs it after writing a new configuration. One lock
// (flock) makes the runs one at a time, so the daemon and a notify never start two dnsmasq.
//
// The leases: dnsmasq's lease file is the node's own; while this node's dnsmasq does not run,
// the daemon writes the leases the master shared into it (src/cluster/ha-leases.ts), so the
// dnsmasq a takeover starts reads them at its start.

/** The files of the pair's dnsmasq, in FW_DATA_DIR/dataplane. */
export interface HaServiceFiles {
  script: string; // ha-services.sh
  conf: string; // ha-dnsmasq.conf: the wanted configuration ("" or absent: no service)
  pidFile: string; // ha-dnsmasq.pid
  logFile: string; // ha-dnsmasq.log
  lock: string; // ha-services.lock
  stateFile: string; // the notify script's record of the VRRP state
}

/** The lines an HA pair adds to dnsmasq's configuration (renderDnsmasq's). */
export const HA_DNSMASQ_LINES = [
  // the pair is the only DHCP server of its links: a renewal of a lease the new master was not
  // told of (shared while the cluster store was down) is answered, not ignored
  'dhcp-authoritative',
];

/**
 * ha-services.sh (no argument, or "stop"): under the lock, dnsmasq runs on `conf` when the recorded state is MASTER
 * (and the argument is not "stop"), else it is ended; a dnsmasq serving an older copy of the
 * configuration is restarted. dnsmasq forks into the background once it serves (its exit
 * status says whether it could start); the lock's descriptor is closed for it, or it would
 * hold the lock for its whole life.
 */
export function renderServices(f: HaServiceFiles): string {
  return [
    '#!/bin/sh',
    '# managed by fwd: DHCP and router advertisements of the HA pair, on the master alone',
    `exec 9>"${f.lock}"`,
    'flock 9',
    `state=$(cut -d' ' -f1 "${f.stateFile}" 2>/dev/null)`,
    `pid=$(cat "${f.pidFile}" 2>/dev/null)`,
    'running=""',
    // ours only when its command line names our configuration (a reused pid is never signalled)
    `if [ -n "$pid" ] && tr '\\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "${f.conf}"; then running="$pid"; fi`,
    // `import NEW LEASES`: the leases the master shared become this node's lease file, unless
    // this node's dnsmasq serves (it owns the file then); under the lock, so never while a
    // takeover is starting dnsmasq on the file
    'if [ "$1" = import ]; then',
    '  if [ -z "$running" ]; then mv "$2" "$3"; else rm -f "$2"; fi',
    '  exit 0',
    'fi',
    'want=""',
    `if [ "$state" = MASTER ] && [ -s "${f.conf}" ] && [ "$1" != stop ]; then want=1; fi`,
    `if [ -n "$running" ] && { [ -z "$want" ] || ! cmp -s "${f.conf}" "${f.conf}.serving"; }; then`,
    '  kill "$running"',
    '  n=0',
    '  while [ -s "/proc/$running/cmdline" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n+1)); done',
    '  [ -s "/proc/$running/cmdline" ] && kill -9 "$running"',
    '  running=""',
    'fi',
    'if [ -n "$want" ] && [ -z "$running" ]; then',
    `  cp "${f.conf}" "${f.conf}.serving"`,
    `  dnsmasq --conf-file="${f.conf}" --pid-file="${f.pidFile}" --log-facility="${f.logFile}" --quiet-dhcp --quiet-dhcp6 --quiet-ra --user=root --group=root 9>&- || exit 1`,
    'fi',
    'exit 0',
    '',
  ].join('\n');
}
