// A daemon with FW_DATAPLANE=linux enforcing on a Lab's firewall namespace, and the pieces the
// data-plane tests share: the base configuration (an address on every firewall link) and a
// reader of the kernel state of the firewall namespace.
import fs from 'node:fs';
import type pino from 'pino';
import { Client, ok, startTestDaemon, tempDir, type TestDaemon } from '../helpers/daemon';
import { Lab, requireLab, sh, fwAddress, fwAddress6 } from '../helpers/netns';

export interface LabDaemon {
  lab: Lab;
  td: TestDaemon;
  client: Client;
  baseVersion: number;
}

/** Lab with `peers` peers, daemon on it (extra inventory links: `extra`), base config committed; `logger`: the daemon's. */
export async function startLabDaemon(peers: number, extra: string[] = [], family: 4 | 6 = 4, env: Record<string, string> = {}, logger?: pino.Logger): Promise<LabDaemon> {
  requireLab();
  const lab = new Lab();
  const dir = tempDir('fwd-dp-');
  try {
    await lab.create(peers, family);
    const links = lab.peers.map((p) => p.link);
    const td = await startTestDaemon({
      FW_DATAPLANE: 'linux', FW_NETNS: lab.fw, FW_INTERFACES: [...links, ...extra].join(','), ...env,
    }, dir, logger);
    const client = await new Client(td.url).login();
    await client.begin();
    for (const p of lab.peers) {
      await ok(client.put(`/api/interfaces/${p.link}`, { ip: family === 4 ? `${fwAddress(p.index)}/24` : `${fwAddress6(p.index)}/64` }));
    }
    await client.commit();
    const baseVersion = (await client.get('/api/status')).body.version as number;
    return { lab, td, client, baseVersion };
  } catch (e) {
    await lab.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** Zones lan (fw1, peer 1) and dmz (fw2, peer 2), created in the open session of `c`. */
export async function lanDmzZones(c: Client): Promise<void> {
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: ['fw1'] }));
  await ok(c.post('/api/zones', { name: 'dmz', type: 'l3', interfaces: ['fw2'] }));
}

export async function stopLabDaemon(ld: LabDaemon | undefined): Promise<void> {
  try {
    await ld?.td.close();
  } finally {
    await ld?.lab.destroy();
    if (ld) fs.rmSync(ld.td.dir, { recursive: true, force: true });
  }
}

/** The kernel state of a namespace that the data plane owns or touches, comparable with toEqual. */
export function kernelState(ns: string): { addresses: string[]; routes: string[]; links: string[]; rules: string } {
  const addrs = JSON.parse(sh(['ip', '-n', ns, '-json', 'address', 'show'])) as Array<{ ifname: string; flags: string[]; addr_info: Array<{ local: string; prefixlen: number; scope: string }> }>;
  const routes = JSON.parse(sh(['ip', '-n', ns, '-json', 'route', 'show'])) as Array<Record<string, unknown>>;
  let rules = '';
  try {
    rules = tableListing(ns);
  } catch {
    rules = '(no table)';
  }
  return {
    links: addrs.map((l) => `${l.ifname} ${l.flags.includes('UP') ? 'up' : 'down'}`).sort(),
    addresses: addrs.flatMap((l) => l.addr_info.filter((a) => a.scope === 'global').map((a) => `${l.ifname} ${a.local}/${a.prefixlen}`)).sort(),
    routes: routes.map((r) => JSON.stringify({ dst: r.dst, gateway: r.gateway, dev: r.dev, metric: r.metric, protocol: r.protocol })).sort(),
    rules,
  };
}

/**
 * `nft list table inet fwdaemon` of a namespace, comparable: counter values gone and the
 * table's sets, counters and chains sorted (the kernel lists them in the order they were
 * added: a chain an incremental commit added comes last, where a whole table has it in order;
 * the order of a chain's rules stays).
 */
export function tableListing(ns: string): string {
  const lines = sh(['ip', 'netns', 'exec', ns, 'nft', 'list', 'table', 'inet', 'fwdaemon']).replace(/packets \d+ bytes \d+/g, '').trimEnd().split('\n');
  // the table's own first and last lines, then its blocks
  const text = lines.slice(1, -1).join('\n');
  const blocks = text.split('\n\n').flatMap((b) => b.split(/\n(?=\t(?:set|chain|counter) )/)).map((b) => b.trim()).filter(Boolean);
  return [lines[0], ...blocks.sort(), lines.at(-1)].join('\n\n');
}
