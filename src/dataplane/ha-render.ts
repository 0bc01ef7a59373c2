// The configuration files of an HA node (pure): keepalived's (VRRPv3), conntrackd's (FTFW),
// and keepalived's notify script, all from the running version's `ha` and this node's id.
//
// keepalived: one vrrp_instance per virtual-address entry and family (VRRPv3 runs one
// instance per family), all in one sync group so that every virtual address of a node moves
// together. Every instance tracks two files the daemon writes (ha-runtime.ts): the data
// plane's state (0 after an apply that succeeded, 1 after one that failed) and maintenance
// (1 while stepped down); with weight 0 a non-zero value is a fault, so a node whose kernel
// does not hold the running version never becomes nor stays master. keepalived reads the
// files itself: neither the daemon nor Redis needs to be up.
//
// conntrackd: FTFW over the sync link, unicast UDP between the two nodes' sync addresses.
// The notify script commits the external cache (the peer's connections) into the kernel on
// takeover, as conntrack-tools' primary-backup.sh does, and records the state for the daemon.
import type { HaConfig, HaNode } from '../config/ha';
import type { NftSet } from './nft-table';

/**
 * The sets in which the kernel keeps when each VRRP sender was last heard: each advert
 * received refreshes its sender's element, whose timeout left then tells the time of the
 * last one (GET /api/ha/status's peer.last_advert, ha-runtime.ts). The kernel keeps it: no
 * process needs to be up, and keepalived exports it nowhere but SNMP and D-Bus.
 */
export const ADVERT_SETS = { 4: 'ha_adverts4', 6: 'ha_adverts6' } as const;
/** How long a sender's last advert is kept (s): a peer silent longer shows none. */
export const ADVERT_KEEP_S = 86400;

/** The table's sets of an HA pair (ADVERT_SETS). */
export function haSets(ha: HaConfig | undefined): NftSet[] {
  if (!ha?.enabled) return [];
  return ([4, 6] as const).map((fam) => ({
    name: ADVERT_SETS[fam],
    type: fam === 4 ? 'ipv4_addr' : 'ipv6_addr',
    elements: [],
    comment: 'ha: the last VRRP advert of each sender (its timeout left)',
    flags: `dynamic, timeout; timeout ${ADVERT_KEEP_S}s`,
  }));
}

/** The input rules an HA pair needs: VRRP adverts on the links of virtual addresses (each noted in ADVERT_SETS), conntrackd on the sync link. */
export function haInputRules(ha: HaConfig | undefined): string[] {
  if (!ha?.enabled) return [];
  const links = [...new Set(ha.virtualAddresses.map((v) => v.interface))].sort();
  return [
    ...links.flatMap((l) => [
      `iifname "${l}" meta nfproto ipv4 meta l4proto 112 update @${ADVERT_SETS[4]} { ip saddr } accept comment "ha: vrrp"`,
      `iifname "${l}" meta nfproto ipv6 meta l4proto 112 update @${ADVERT_SETS[6]} { ip6 saddr } accept comment "ha: vrrp"`,
    ]),
    ...(ha.syncInterface ? [`iifname "${ha.syncInterface}" udp dport ${SYNC_PORT} accept comment "ha: conntrackd"`] : []),
  ];
}

export interface HaFiles {
  dir: string; // FW_DATA_DIR/dataplane
  keepalivedConf: string;
  conntrackdConf: string;
  notifyScript: string;
  dataplaneFile: string; // 0 ok, 1 failed
  maintenanceFile: string; // 0 serving, 1 stepped down
  stateFile: string; // "<STATE> <epoch ms>", written by the notify script
  conntrackdSocket: string;
}

/** How long a returning node of higher priority waits before it takes the master role back (s). */
export const PREEMPT_DELAY_S = 3;

/** conntrackd's UDP port on the sync link. */
export const SYNC_PORT = 3780;

const family = (cidr: string): 4 | 6 => (cidr.includes(':') ? 6 : 4);
const host = (cidr: string): string => cidr.split('/')[0];

/** keepalived's instance name of a virtual-address entry and family (at most 15 characters of [a-z0-9_] are safe everywhere). */
export function instanceName(link: string, vrid: number, fam: 4 | 6): string {
  return `fwd_${vrid}_${fam}_${link.replace(/[^A-Za-z0-9]/g, '_')}`.slice(0, 40);
}

/** advert_int in seconds as keepalived reads it ("0.2"). */
const seconds = (ms: number): string => String(ms / 1000);

export function renderKeepalived(ha: HaConfig, me: HaNode, files: HaFiles): string {
  const instances: string[] = [];
  const names: string[] = [];
  for (const v of ha.virtualAddresses) {
    for (const fam of [4, 6] as const) {
      const addrs = v.addresses.filter((a) => family(a) === fam);
      if (!addrs.length) continue;
      const name = instanceName(v.interface, v.vrid, fam);
      names.push(name);
      instances.push([
        `vrrp_instance ${name} {`,
        '  state BACKUP',
        `  interface ${v.interface}`,
        `  virtual_router_id ${v.vrid}`,
        `  priority ${me.priority}`,
        `  advert_int ${seconds(ha.advertIntervalMs)}`,
        // a returning node waits before it takes the master role back: its conntrackd has
        // asked the master for a resync meanwhile (notify BACKUP), so it takes over knowing
        // the connections
        ...(ha.preempt ? [`  preempt_delay ${PREEMPT_DELAY_S}`] : ['  nopreempt']),
        '  track_file {',
        '    fwd_dataplane weight 0',
        '    fwd_maintenance weight 0',
        '  }',
        '  virtual_ipaddress {',
        ...addrs.map((a) => `    ${a} dev ${v.interface}`),
        '  }',
        '}',
      ].join('\n'));
    }
  }
  return [
    '# managed by fwd: generated from the running configuration (GET /api/ha)',
    'global_defs {',
    `  router_id fwd_${me.node.replace(/[^A-Za-z0-9]/g, '_')}`,
    '  vrrp_version 3',
    '  script_user root',
    '  enable_script_security',
    // gratuitous ARP and unsolicited neighbour advertisements at once on takeover, then again
    '  vrrp_garp_master_delay 1',
    '  vrrp_garp_master_repeat 3',
    '  vrrp_garp_master_refresh 0',
    '}',
    'vrrp_track_file fwd_dataplane {',
    `  file "${files.dataplaneFile}"`,
    '  weight 0',
    '}',
    'vrrp_track_file fwd_maintenance {',
    `  file "${files.maintenanceFile}"`,
    '  weight 0',
    '}',
    'vrrp_sync_group fwd {',
    '  group {',
    ...names.map((n) => `    ${n}`),
    '  }',
    `  notify "${files.notifyScript}"`,
    '}',
    ...instances,
    '',
  ].join('\n');
}

/** Every address of the node, which conntrackd leaves out of the sync (connections to the firewall itself). */
function ownAddresses(me: HaNode): string[] {
  return Object.values(me.addresses).flat().map(host);
}

export function renderConntrackd(ha: HaConfig, me: HaNode, peer: HaNode, files: HaFiles): string {
  const mine = (me.addresses[ha.syncInterface] ?? []).find((a) => family(a) === 4);
  const theirs = (peer.addresses[ha.syncInterface] ?? []).find((a) => family(a) === 4);
  const own = ownAddresses(me);
  return [
    '# managed by fwd: generated from the running configuration (GET /api/ha)',
    'Sync {',
    '  Mode FTFW {',
    '    DisableExternalCache Off',
    '    CommitTimeout 1800',
    '    PurgeTimeout 5',
    '  }',
    '  UDP {',
    `    IPv4_address ${host(mine ?? '0.0.0.0')}`,
    `    IPv4_Destination_Address ${host(theirs ?? '0.0.0.0')}`,
    `    Port ${SYNC_PORT}`,
    `    Interface ${ha.syncInterface}`,
    '    SndSocketBuffer 1249280',
    '    RcvSocketBuffer 1249280',
    '    Checksum on',
    '  }',
    '}',
    'General {',
    '  HashSize 32768',
    '  HashLimit 131072',
    `  LogFile ${files.dir}/conntrackd.log`,
    '  Syslog off',
    `  LockFile ${files.dir}/conntrackd.lock`,
    '  UNIX {',
    `    Path ${files.conntrackdSocket}`,
    '  }',
    '  NetlinkBufferSize 2097152',
    '  NetlinkBufferSizeMaxGrowth 8388608',
    '  NetlinkOverrunResync On',
    '  NetlinkEventsReliable On',
    '  Filter From Userspace {',
    '    Protocol Accept {',
    '      TCP',
    '      UDP',
    '      SCTP',
    '      ICMP',
    '      IPv6-ICMP',
    '    }',
    '    Address Ignore {',
    '      IPv4_address 127.0.0.1',
    '      IPv6_address ::1',
    ...own.map((a) => `      ${a.includes(':') ? 'IPv6_address' : 'IPv4_address'} ${a}`),
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
}

/**
 * keepalived's notify script of the sync group (arguments: GROUP name STATE priority). The
 * conntrackd steps are conntrack-tools' primary-backup.sh: a new master commits the external
 * cache into the kernel, flushes both caches, resyncs its internal cache with the kernel and
 * sends it whole to the peer; a backup asks the master for a resync; a fault shortens the
 * timers of what the kernel holds. The state goes to a file the daemon reads (events) and
 * that ha-services.sh reads to serve DHCP on the master alone.
 */
export function renderNotify(files: HaFiles, servicesScript: string): string {
  const ctd = `conntrackd -C "${files.conntrackdConf}"`;
  return [
    '#!/bin/sh',
    '# managed by fwd: keepalived notify of the sync group',
    'state="$3"',
    'case "$state" in',
    `  MASTER) ${ctd} -c; ${ctd} -f; ${ctd} -R; ${ctd} -B ;;`,
    `  BACKUP) ${ctd} -n ;;`,
    `  FAULT) ${ctd} -t ;;`,
    'esac',
    `echo "$state $(date +%s%3N)" > "${files.stateFile}.tmp" && mv "${files.stateFile}.tmp" "${files.stateFile}"`,
    // DHCP and router advertisements follow the state (ha-services.ts)
    `sh "${servicesScript}"`,
    'exit 0',
    '',
  ].join('\n');
}

/** The counters of `conntrackd -s` (its text output). */
export interface SyncCounters {
  internal: number;
  external: number;
  sent: number;
  received: number;
  errors: number;
}

export function parseConntrackdStats(text: string): SyncCounters {
  const section = (name: string): number => {
    const at = text.indexOf(`cache ${name}:`);
    if (at < 0) return 0;
    const m = /current active connections:\s+(\d+)/.exec(text.slice(at));
    return m ? Number(m[1]) : 0;
  };
  const pkts = /(\d+)\s+Pckts sent\s+(\d+)\s+Pckts recv/.exec(text);
  const errs = /(\d+)\s+Error send\s+(\d+)\s+Error recv/.exec(text);
  const lost = /(\d+)\s+Lost msgs/.exec(text);
  return {
    internal: section('internal'),
    external: section('external'),
    sent: pkts ? Number(pkts[1]) : 0,
    received: pkts ? Number(pkts[2]) : 0,
    errors: (errs ? Number(errs[1]) + Number(errs[2]) : 0) + (lost ? Number(lost[1]) : 0),
  };
}

/** A duration of nft's listing ("23h59m58s812ms", "1d") in ms. */
export function nftDurationMs(text: string): number {
  const unit: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  let ms = 0;
  for (const m of text.matchAll(/(\d+)(ms|d|h|m|s)/g)) ms += Number(m[1]) * unit[m[2]];
  return ms;
}

/**
 * When each sender in an ADVERT_SETS listing (`nft list set`) was last heard, by address:
 * now less the part of its timeout that ran out.
 */
export function lastAdverts(listing: string, now: number): Map<string, number> {
  const out = new Map<string, number>();
  const body = /elements = \{([^}]*)\}/.exec(listing)?.[1] ?? '';
  // an element on the set's own timeout shows only what is left ("expires")
  for (const m of body.matchAll(/([0-9a-fA-F:.]+)(?: timeout (\w+))? expires (\w+)/g)) {
    const timeout = m[2] ? nftDurationMs(m[2]) : ADVERT_KEEP_S * 1000;
    out.set(m[1], now - (timeout - nftDurationMs(m[3])));
  }
  return out;
}
