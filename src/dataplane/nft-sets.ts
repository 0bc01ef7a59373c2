// The named sets of the nft table: declared once each, shared by every rule that needs the same
// elements, named by a stable hash of the object they hold so that two versions' tables name
// the same set alike (the incremental apply diffs them by name).
import { createHash } from 'node:crypto';
import type { Family } from '../config/net';
import type { ServiceObj } from '../config/types';
import type { NftSet } from './nft-table';
import { formatRange } from './ranges';

function portRanges(ports: ServiceObj['ports']): Array<[number, number]> {
  return ports.map((p) => {
    if (typeof p === 'number') return [p, p] as [number, number];
    const [lo, hi] = p.split('-').map(Number);
    return [lo, hi] as [number, number];
  });
}

/** Port entries with overlaps merged: "22", "1000-2000". */
function portItems(ranges: Array<[number, number]>): string[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged.map(([lo, hi]) => (lo === hi ? `${lo}` : `${lo}-${hi}`));
}

/**
 * Named interval sets, declared on first use and shared by every rule that needs the same
 * elements. An empty one is never declared (null: no match) and a single element is written
 * into the rule itself: the kernel's cost of loading a table grows with the square of its
 * number of sets (anonymous ones included), so only real sets are sets, each once.
 */
export class Sets {
  private readonly byName = new Map<string, string | null>();
  private readonly byContent = new Map<string, string>();
  readonly decls: NftSet[] = [];

  /** A reference to the set `name` of `type` (elements built on first use), or null. */
  use(name: string, type: string, build: () => string[], comment: string): string | null {
    const known = this.byName.get(name);
    if (known !== undefined) return known;
    const elements = build();
    let ref: string | null = null;
    if (elements.length === 1) ref = elements[0];
    else if (elements.length > 1) {
      const key = `${type} ${elements.join(',')}`;
      ref = this.byContent.get(key) ?? null;
      if (ref === null) {
        ref = `@${name}`;
        this.byContent.set(key, ref);
        this.decls.push({ name, type, elements, comment });
      }
    }
    this.byName.set(name, ref);
    return ref;
  }

  /** The ports of a service: one set per service (a single port or range stands alone). */
  ports(service: ServiceObj): string {
    return this.use(`ports_${stableId(service.name)}`, 'inet_service', () => portItems(portRanges(service.ports)), `ports of service ${service.name}`)!;
  }

  /** The source ports of a service that names some (issue 27), one set per service. */
  sourcePorts(service: ServiceObj): string {
    return this.use(`sports_${stableId(service.name)}`, 'inet_service', () => portItems(portRanges(service.sourcePorts ?? [])), `source ports of service ${service.name}`)!;
  }
}

export const addrElements = (family: Family, ranges: Array<[bigint, bigint]>) => ranges.map(([lo, hi]) => formatRange(family, lo, hi));

/**
 * The part of a set's name that says which object it holds: 48 bits of the object name's
 * hash (not its position among the names: a new object would rename every later set, and an
 * incremental commit would write them all again). Collisions among 100,000 names: about 2e-5.
 */
export function stableId(name: string): string {
  return createHash('sha1').update(name).digest('hex').slice(0, 12);
}
