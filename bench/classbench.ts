// ClassBench rule sets mapped onto the firewall's model, exactly (issue 27): each rule one
// policy in the same order; a one-CIDR address object per distinct source or destination
// prefix (shared by name); a service per protocol, destination port range and source port
// range: tcp (0x06) and udp (0x11) with ports and, unless the rule's source ports are
// 0 : 65535, `source-ports`; any other protocol with mask 0xFF by its name or number (icmp,
// gre, esp, ah in these sets; their port ranges are all 0 : 65535, so nothing is lost); mask
// 0x00 the `any` service (its port ranges are all 0 : 65535 too); zones any.
// Decisions of this mapping: actions alternate allow, deny, allow, ... (rule 0 allows) so
// that both actions and the analysis are exercised; a destination port range starting at 0
// starts at 1 (services hold ports 1-65535; in these sets only full ranges 0 : 65535 start at
// 0, so only a tcp or udp packet of destination port 0 is classed differently, and the anchors
// are given the rules as mapped); one up interface eth0 (10.255.255.254/31) with a default
// route through it, so that the full pipeline reaches the policies.
import fs from 'node:fs';
import { emptyDoc } from '../src/config/document';
import type { ConfigDoc, PortEntry } from '../src/config/types';
import { hasPorts, protocolName } from '../src/config/protocols';

export interface CbRule {
  src: [number, number]; // address (uint32), prefix
  dst: [number, number];
  sport: [number, number];
  dport: [number, number];
  proto: number; // -1: any
}

function ipv4(text: string): number {
  const b = text.split('.').map(Number);
  return ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
}

export function parseClassBench(text: string): CbRule[] {
  const out: CbRule[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('@')) continue;
    const f = line.slice(1).split('\t');
    const [sa, sl] = f[0].split('/');
    const [da, dl] = f[1].split('/');
    const sp = f[2].split(':').map((x) => Number(x.trim()));
    const dp = f[3].split(':').map((x) => Number(x.trim()));
    const [pv, pm] = f[4].split('/').map((x) => parseInt(x, 16));
    const mask = (len: number) => (len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0);
    out.push({
      src: [(ipv4(sa) & mask(Number(sl))) >>> 0, Number(sl)],
      dst: [(ipv4(da) & mask(Number(dl))) >>> 0, Number(dl)],
      sport: [sp[0], sp[1]],
      dport: [dp[0], dp[1]],
      proto: pm === 0xff ? pv : -1,
    });
  }
  return out;
}

const v4text = (a: number) => `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`;

export function classBenchDoc(rules: readonly CbRule[]): ConfigDoc {
  const doc = emptyDoc(['eth0']);
  const eth0 = doc.interfaces.get('eth0')!;
  eth0.ip = '10.255.255.254/31';
  doc.routes.push({ id: 1, description: 'default', destination: '0.0.0.0/0', gateway: '', interface: 'eth0', metric: 0 });
  doc.counters.route = 1;
  const addr = (a: [number, number]) => {
    const name = `n-${v4text(a[0])}_${a[1]}`;
    if (!doc.addresses.has(name)) doc.addresses.set(name, { name, ips: [`${v4text(a[0])}/${a[1]}`] });
    return name;
  };
  const range = (lo: number, hi: number): PortEntry => (lo === hi ? lo : `${lo}-${hi}`);
  rules.forEach((r, i) => {
    let services: string[] = [];
    if (r.proto !== -1) {
      const protocol = protocolName(r.proto);
      let name = protocol;
      let ports: PortEntry[] = [];
      let sourcePorts: PortEntry[] | undefined;
      if (hasPorts(r.proto)) {
        const lo = Math.max(1, r.dport[0]);
        const hi = Math.max(lo, r.dport[1]);
        ports = [range(lo, hi)];
        name = `${protocol}-${ports[0]}`;
        if (r.sport[0] !== 0 || r.sport[1] !== 65535) {
          sourcePorts = [range(r.sport[0], r.sport[1])];
          name += `-from-${sourcePorts[0]}`;
        }
      }
      if (!doc.services.has(name)) doc.services.set(name, { name, protocol, ports, ...(sourcePorts ? { sourcePorts } : {}) });
      services = [name];
    }
    doc.policies.push({ id: i + 1, action: i % 2 === 0 ? 'allow' : 'deny', srcZone: '', dstZone: '', srcAddr: addr(r.src), dstAddr: addr(r.dst), services, log: false });
  });
  doc.counters.policy = rules.length;
  return doc;
}

export function loadClassBench(file: string): CbRule[] {
  return parseClassBench(fs.readFileSync(file, 'utf8'));
}
