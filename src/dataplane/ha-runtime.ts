// The HA pair on this node's kernel (issue 39): keepalived and conntrackd run like dnsmasq and
// ulogd (HelperProcess: their own session, found and adopted by the next start of the daemon,
// so a restart or a kill -9 of the daemon changes nothing on the wire), configured from the
// running version (ha-render.ts). After each apply the daemon writes the data plane's state
// file that keepalived tracks; keepalived's notify script writes the VRRP state, which this
// module reads to answer GET /api/ha/status and to tell the daemon of each transition.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { haNode, haPeer, type HaConfig, type HaNode } from '../config/ha';
import type { ConfigDoc } from '../config/types';
import { HelperProcess } from './helper-process';
import type { Host } from './host';
import { ADVERT_SETS, lastAdverts, parseConntrackdStats, renderConntrackd, renderKeepalived, renderNotify, type HaFiles, type SyncCounters } from './ha-render';
import { NFT_TABLE } from './names';
import type { HaControl, HaState, HaStatus, HaTransition } from './ha-types';
import { renderServices, type HaServiceFiles } from './ha-services';

/** How often the notify script's state file is looked at (a transition's event follows within this). */
const WATCH_MS = 200;

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Writes `text` to `file` atomically (a reader never sees half of it: keepalived reads these). */
function writeAtomic(file: string, text: string, mode?: number): void {
  const tmp = `${file}.tmp${process.pid}`;
  fs.writeFileSync(tmp, text, mode === undefined ? undefined : { mode });
  fs.renameSync(tmp, file);
}

const STATE_OF: Record<string, HaState> = { MASTER: 'master', BACKUP: 'backup', FAULT: 'fault', STOP: 'disabled' };

export class HaRuntime implements HaControl {
  readonly files: HaFiles;
  private readonly keepalived: HelperProcess;
  private readonly conntrackd: HelperProcess;
  /** the pair's dnsmasq, which ha-services.sh runs on the master alone (ha-services.ts) */
  readonly services: HaServiceFiles;
  private readonly dnsmasq: HelperProcess;
  /** the pair of the running version and this node in it, when enabled */
  private current: { ha: HaConfig; doc: ConfigDoc } | null = null;
  private dataplaneOk = true;
  private readonly listeners: Array<(t: HaTransition) => void> = [];
  private lastState: { state: HaState; at: string } = { state: 'disabled', at: new Date().toISOString() };
  private watch: NodeJS.Timeout | null = null;
  /** the last `conntrackd -s` counters and when received last grew (the link is "connected") */
  private lastReceived = { count: -1, at: 0 };

  constructor(private readonly host: Host, dir: string, private readonly nodeId: string | undefined, private readonly log: Logger, private readonly leaseFile = path.join(dir, 'dnsmasq.leases')) {
    this.files = {
      dir,
      keepalivedConf: path.join(dir, 'keepalived.conf'),
      conntrackdConf: path.join(dir, 'conntrackd.conf'),
      notifyScript: path.join(dir, 'ha-notify.sh'),
      dataplaneFile: path.join(dir, 'ha-dataplane'),
      maintenanceFile: path.join(dir, 'ha-maintenance'),
      stateFile: path.join(dir, 'ha-state'),
      conntrackdSocket: path.join(dir, 'conntrackd.ctl'),
    };
    this.services = {
      script: path.join(dir, 'ha-services.sh'),
      conf: path.join(dir, 'ha-dnsmasq.conf'),
      pidFile: path.join(dir, 'ha-dnsmasq.pid'),
      logFile: path.join(dir, 'ha-dnsmasq.log'),
      lock: path.join(dir, 'ha-services.lock'),
      stateFile: this.files.stateFile,
    };
    this.dnsmasq = new HelperProcess(host, this.services.conf, this.services.pidFile, this.services.logFile);
    this.keepalived = new HelperProcess(host, this.files.keepalivedConf, path.join(dir, 'keepalived.pid'), path.join(dir, 'keepalived.out'));
    this.conntrackd = new HelperProcess(host, this.files.conntrackdConf, path.join(dir, 'conntrackd.pid'), path.join(dir, 'conntrackd.out'));
    const known = this.readState();
    if (known) this.lastState = known;
  }

  /** The state the notify script recorded last, or null. */
  private readState(): { state: HaState; at: string } | null {
    const text = readText(this.files.stateFile);
    const m = text && /^(\w+) (\d+)/.exec(text);
    if (!m) return null;
    return { state: STATE_OF[m[1]] ?? 'fault', at: new Date(Number(m[2])).toISOString() };
  }

  /** Tells keepalived (through its tracked file) whether the kernel holds the running version. */
  markDataplane(ok: boolean): void {
    this.dataplaneOk = ok;
    fs.mkdirSync(this.files.dir, { recursive: true });
    writeAtomic(this.files.dataplaneFile, ok ? '0\n' : '1\n');
  }

  /**
   * Makes keepalived and conntrackd run the pair of `doc` (the running version, applied), or
   * stops them when it has no enabled pair naming this node. A running helper on the same
   * configuration is left alone (or adopted after a restart of the daemon); keepalived on
   * another configuration reloads (SIGHUP: no state change), conntrackd restarts.
   * `dnsmasqConf`: the DHCP pools' and router advertisements' configuration ("" for none),
   * served by the master alone (ha-services.ts).
   */
  async ensure(doc: ConfigDoc, dnsmasqConf = ''): Promise<void> {
    const ha = doc.ha;
    const me = haNode(ha, this.nodeId);
    const peer = ha && me ? haPeer(ha, me.node) : undefined;
    if (!ha?.enabled || !me || !peer || !this.runsPair(doc)) {
      this.current = null;
      await this.stop();
      return;
    }
    this.current = { ha, doc };
    fs.mkdirSync(this.files.dir, { recursive: true });
    if (readText(this.files.maintenanceFile) === null) writeAtomic(this.files.maintenanceFile, '0\n');
    if (readText(this.files.dataplaneFile) === null) this.markDataplane(this.dataplaneOk);
    writeAtomic(this.files.notifyScript, renderNotify(this.files, this.services.script), 0o700);
    writeAtomic(this.services.script, renderServices(this.services), 0o700);
    await this.ensureConntrackd(renderConntrackd(ha, me, peer, this.files));
    await this.ensureKeepalived(renderKeepalived(ha, me, this.files));
    await this.ensureServices(dnsmasqConf);
    this.startWatch();
  }

  /** Writes the pair's dnsmasq configuration and lets ha-services.sh start, restart or end dnsmasq as the state wants. */
  private async ensureServices(conf: string): Promise<void> {
    if (readText(this.services.conf) !== conf) writeAtomic(this.services.conf, conf);
    await this.host.exec('sh', [this.services.script]);
  }

  /** Whether `doc` runs an enabled pair on this node (its dnsmasq is then the pair's: ha-services.ts). */
  runsPair(doc: ConfigDoc): boolean {
    const me = haNode(doc.ha, this.nodeId);
    return Boolean(doc.ha?.enabled && me && haPeer(doc.ha, me.node));
  }

  /** Ends the pair's dnsmasq (the pair is gone: the daemon's own dnsmasq serves next). */
  stopServices(): Promise<void> {
    return this.dnsmasq.stop();
  }

  leaseState(): { enabled: boolean; serving: boolean; text: string } {
    return { enabled: this.current !== null, serving: this.dnsmasq.found() !== null, text: readText(this.leaseFile) ?? '' };
  }

  async importLeases(text: string): Promise<void> {
    if (this.current === null || readText(this.leaseFile) === text) return;
    const tmp = `${this.leaseFile}.import${process.pid}`;
    fs.writeFileSync(tmp, text);
    await this.host.exec('sh', [this.services.script, 'import', tmp, this.leaseFile]);
  }

  /** The pid of the pair's dnsmasq on this node (it runs on the master), or null. */
  dnsmasqPid(): number | null {
    return this.dnsmasq.found();
  }

  private async ensureConntrackd(conf: string): Promise<void> {
    const running = this.conntrackd.found();
    if (running !== null && readText(this.files.conntrackdConf) === conf) {
      this.conntrackd.adopt(running);
      return;
    }
    await this.conntrackd.stop();
    writeAtomic(this.files.conntrackdConf, conf);
    fs.rmSync(path.join(this.files.dir, 'conntrackd.lock'), { force: true }); // a killed one's lock
    fs.rmSync(this.files.conntrackdSocket, { force: true });
    const child = this.conntrackd.start('conntrackd', ['-C', this.files.conntrackdConf]);
    // conntrackd writes no pid file of its own; `ip netns exec` execs it, so the child's pid is its pid
    if (child.pid !== undefined) writeAtomic(this.conntrackd.pidFile, `${child.pid}\n`);
    await this.waitFor(() => fs.existsSync(this.files.conntrackdSocket), this.conntrackd, 'conntrackd');
    this.log.info({ pid: child.pid }, 'conntrackd started: connection state sync (FTFW)');
  }

  private async ensureKeepalived(conf: string): Promise<void> {
    const running = this.keepalived.found();
    const same = readText(this.files.keepalivedConf) === conf;
    if (running !== null) {
      this.keepalived.adopt(running);
      if (same) return;
      writeAtomic(this.files.keepalivedConf, conf);
      process.kill(running, 'SIGHUP'); // reload: the instances keep their state
      this.log.info({ pid: running }, 'keepalived reloaded: new HA configuration');
      return;
    }
    writeAtomic(this.files.keepalivedConf, conf);
    // a new keepalived starts as backup: a MASTER recorded by one that died (a power cycle)
    // must not let ha-services.sh serve DHCP before its first notify
    if (this.readState()?.state === 'master') writeAtomic(this.files.stateFile, `BACKUP ${Date.now()}\n`);
    const child = this.keepalived.start('keepalived', [
      '--vrrp', '--dont-fork', '--log-console', '--log-detail', '--use-file', this.files.keepalivedConf,
      '--pid', this.keepalived.pidFile, '--vrrp_pid', path.join(this.files.dir, 'keepalived-vrrp.pid'),
      '--checkers_pid', path.join(this.files.dir, 'keepalived-checkers.pid'),
    ]);
    await this.waitFor(() => this.keepalived.found() !== null, this.keepalived, 'keepalived');
    this.log.info({ pid: child.pid }, 'keepalived started: VRRP of the HA pair');
  }

  /** Waits (at most 10 s) for a helper to be ready; its log's end when it died or never got there. */
  private async waitFor(ready: () => boolean, helper: HelperProcess, name: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!ready()) {
      if (!helper.alive() && helper.found() === null) throw new Error(`${name} exited: ${helper.logTail()}`);
      if (Date.now() > deadline) throw new Error(`${name} did not start within 10 s: ${helper.logTail()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Polls the notify script's state file: each change is a transition for the listeners. */
  private startWatch(): void {
    if (this.watch) return;
    this.watch = setInterval(() => this.poll(), WATCH_MS);
    this.watch.unref();
  }

  private poll(): void {
    const now = this.readState();
    if (!now || (now.state === this.lastState.state && now.at === this.lastState.at)) return;
    const t: HaTransition = { state: now.state, at: now.at, previous: this.lastState.state };
    this.lastState = now;
    if (t.state === t.previous) return;
    this.log.info({ state: t.state, previous: t.previous, at: t.at }, 'HA state changed');
    for (const l of this.listeners) l(t);
  }

  onTransition(listener: (t: HaTransition) => void): void {
    this.listeners.push(listener);
  }

  async setMaintenance(on: boolean): Promise<void> {
    fs.mkdirSync(this.files.dir, { recursive: true });
    writeAtomic(this.files.maintenanceFile, on ? '1\n' : '0\n');
    this.log.warn({ maintenance: on }, on ? 'HA: this node steps down (maintenance)' : 'HA: this node serves again');
  }

  private maintenance(): boolean {
    return (readText(this.files.maintenanceFile) ?? '0').trim() !== '0';
  }

  /** conntrackd's counters, or null when it does not answer. */
  private async syncCounters(): Promise<SyncCounters | null> {
    if (this.conntrackd.found() === null) return null;
    try {
      return parseConntrackdStats(await this.host.exec('conntrackd', ['-C', this.files.conntrackdConf, '-s']));
    } catch {
      return null;
    }
  }

  /** Every address the kernel holds, "address/prefix" by link. */
  private async heldAddresses(): Promise<Map<string, Set<string>>> {
    const out = new Map<string, Set<string>>();
    try {
      const links = JSON.parse((await this.host.ip(['-json', 'address', 'show'])) || '[]') as Array<{ ifname: string; addr_info?: Array<{ local: string; prefixlen: number }> }>;
      for (const l of links) out.set(l.ifname, new Set((l.addr_info ?? []).map((a) => `${a.local}/${a.prefixlen}`)));
    } catch {
      // no answer: nothing shown as held
    }
    return out;
  }

  /**
   * When the peer's last VRRP advert reached this node, from the kernel's ADVERT_SETS: IPv4
   * adverts from the peer's own addresses, IPv6 ones from any link-local sender (the peer's is
   * not configured; VRRPv3 sends from it). Null when none was heard since the table was
   * written whole (a full apply empties the sets) or within ADVERT_KEEP_S.
   */
  private async peerLastAdvert(peer: HaNode): Promise<string | null> {
    const now = Date.now();
    const mine = new Set(Object.values(peer.addresses).flat().map((a) => a.split('/')[0]));
    let last = -1;
    for (const fam of [4, 6] as const) {
      let listing = '';
      try {
        listing = await this.host.exec('nft', ['list', 'set', 'inet', NFT_TABLE, ADVERT_SETS[fam]]);
      } catch {
        continue; // no table yet
      }
      for (const [addr, at] of lastAdverts(listing, now)) if ((fam === 6 ? addr.startsWith('fe80:') : mine.has(addr)) && at > last) last = at;
    }
    return last < 0 ? null : new Date(last).toISOString();
  }

  async status(): Promise<HaStatus> {
    this.poll();
    const cur = this.current;
    const me = cur ? haNode(cur.ha, this.nodeId) : undefined;
    const peer = cur && me ? haPeer(cur.ha, me.node) : undefined;
    const keepalived = this.keepalived.found();
    const conntrackd = this.conntrackd.found();
    const counters = await this.syncCounters();
    if (counters && counters.received !== this.lastReceived.count) this.lastReceived = { count: counters.received, at: Date.now() };
    const held = await this.heldAddresses();
    const enabled = Boolean(cur && me);
    const state: HaState = !enabled || keepalived === null ? 'disabled' : this.lastState.state;
    return {
      node: this.nodeId ?? '',
      enabled,
      state,
      since: enabled ? this.lastState.at : null,
      maintenance: this.maintenance(),
      dataplane_ok: this.dataplaneOk,
      virtual_addresses: (cur?.ha.virtualAddresses ?? []).flatMap((v) => v.addresses.map((a) => ({
        interface: v.interface, vrid: v.vrid, address: a, held: held.get(v.interface)?.has(a) ?? false,
      }))),
      peer: peer ? { node: peer.node, priority: peer.priority, last_advert: await this.peerLastAdvert(peer) } : null,
      sync: {
        interface: cur?.ha.syncInterface ?? '',
        running: conntrackd !== null,
        // FTFW sends alive messages: what was received lately says the peer is there
        connected: counters !== null && counters.received > 0 && Date.now() - this.lastReceived.at < 10_000 + (cur?.ha.advertIntervalMs ?? 0),
        sent: counters?.sent ?? 0,
        received: counters?.received ?? 0,
        errors: counters?.errors ?? 0,
        external_cache: counters?.external ?? 0,
        internal_cache: counters?.internal ?? 0,
      },
      processes: { keepalived, conntrackd },
    };
  }

  /** Stops keepalived (its addresses go with it) and conntrackd. */
  async stop(): Promise<void> {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
    await this.keepalived.stop();
    await this.conntrackd.stop();
    await this.dnsmasq.stop();
  }

  /** At the daemon's stop: leaves both running (FW_HELPERS_ON_STOP=keep) or stops them. */
  async close(keep: boolean): Promise<void> {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
    if (!keep) await this.stop();
  }
}
