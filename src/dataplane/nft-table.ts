// Our nft table as units that can be compared between two versions: counters, named sets and
// chains (each chain's rules in order). Written whole (the table deleted and created again in
// one transaction: first start, recovery, large changes) or as the difference from the table
// the kernel holds (a few changed chains and sets, still one `nft -f` transaction: atomic, no
// packet sees half of it). Long rule lists are split into chains of a few hundred rules by
// the renderer (nft.ts), so a changed rule costs the flush and refill of its chain only.
import { createHash } from 'node:crypto';
import { NFT_TABLE } from './names';

export interface NftCounterDecl {
  name: string;
  packets: number;
  bytes: number;
}

export interface NftSet {
  name: string;
  type: string;
  elements: string[];
  comment: string;
  /** absent: "interval"; a dynamic set's (issue 40): "interval, timeout" */
  flags?: string;
}

export interface NftChain {
  name: string;
  /** the base chain's type, hook, priority and policy line; null for a chain reached by jump */
  hook: string | null;
  rules: string[];
}

export interface NftTable {
  counters: NftCounterDecl[];
  sets: NftSet[];
  chains: NftChain[];
}

const T = `inet ${NFT_TABLE}`;

const setText = (s: NftSet) => `  # ${s.comment}\n  set ${s.name} { type ${s.type}; flags ${s.flags ?? 'interval'};${s.elements.length ? ` elements = { ${s.elements.join(', ')} }` : ''} }`;
const chainText = (c: NftChain) => `  chain ${c.name} {\n${c.hook ? `    ${c.hook}\n` : ''}${c.rules.map((r) => `    ${r}\n`).join('')}  }`;
const counterText = (c: NftCounterDecl) => `  counter ${c.name} { packets ${c.packets} bytes ${c.bytes} }`;

/** The whole script: the table replaced in one transaction. */
export function tableScript(t: NftTable): string {
  return [
    `# managed by fwd: this table is replaced as a whole on every commit, or changed chain by chain`,
    `table ${T}`,
    `delete table ${T}`,
    `table ${T} {`,
    ...t.counters.map(counterText),
    ...t.sets.map(setText),
    // chains reached by jump first: a base chain's jump needs its target declared
    ...t.chains.filter((c) => !c.hook).map(chainText),
    ...t.chains.filter((c) => c.hook).map(chainText),
    `}`,
    '',
  ].join('\n');
}

/** What the kernel's table holds apart from counter values: equal digests, equal tables. */
export function tableDigest(t: NftTable): string {
  const h = createHash('sha256');
  for (const c of t.counters) h.update(`c ${c.name}\n`);
  for (const s of t.sets) h.update(`s ${s.name} ${s.type}${s.flags ? ` ${s.flags}` : ''} ${s.elements.join(',')}\n`);
  for (const c of t.chains) h.update(`h ${c.name} ${c.hook ?? ''}\n${c.rules.join('\n')}\n`);
  return h.digest('hex').slice(0, 32);
}

export interface TableUpdate {
  script: string;
  /** the transaction's commands (one a line, an `add rule` per rule): what the kernel is asked */
  operations: number;
}

/**
 * The transaction that turns the table `from` (what the kernel holds) into `to`: new counters,
 * sets and chains added; sets whose elements changed flushed and filled; chains whose rules
 * changed flushed and filled; then what went deleted (after the rules that used it). Null when
 * a base chain's hook changed (never between two renders of this build) or when the change is
 * large: more than `maxShare` of the rules would be written again (the whole table is then
 * about as cheap, and it also starts again from a known state). Counters that stay keep their values: they are never touched.
 */
export function tableUpdate(from: NftTable, to: NftTable, maxShare = 0.5): TableUpdate | null {
  const lines: string[] = [];
  const fromSets = new Map(from.sets.map((s) => [s.name, s]));
  const toSets = new Map(to.sets.map((s) => [s.name, s]));
  const fromChains = new Map(from.chains.map((c) => [c.name, c]));
  const toChains = new Map(to.chains.map((c) => [c.name, c]));
  const toCounters = new Set(to.counters.map((c) => c.name));
  const fromCounters = new Set(from.counters.map((c) => c.name));
  for (const c of to.counters) if (!fromCounters.has(c.name)) lines.push(`add counter ${T} ${c.name} { packets ${c.packets} bytes ${c.bytes} }`);
  for (const s of to.sets) {
    const old = fromSets.get(s.name);
    if (!old || old.type !== s.type || old.flags !== s.flags) {
      if (old) return null; // a name that changed type: never with names that carry the family
      lines.push(`add set ${T} ${s.name} { type ${s.type}; flags ${s.flags ?? 'interval'}; }`);
      if (s.elements.length) lines.push(`add element ${T} ${s.name} { ${s.elements.join(', ')} }`);
    } else if (old.elements.join(',') !== s.elements.join(',')) {
      lines.push(`flush set ${T} ${s.name}`);
      lines.push(`add element ${T} ${s.name} { ${s.elements.join(', ')} }`);
    }
  }
  let rewritten = 0;
  const total = to.chains.reduce((n, c) => n + c.rules.length, 0);
  const changed: NftChain[] = [];
  for (const c of to.chains) {
    const old = fromChains.get(c.name);
    if (old && old.hook !== c.hook) return null;
    if (!old) lines.push(c.hook ? `add chain ${T} ${c.name} { ${c.hook} }` : `add chain ${T} ${c.name}`);
    if (!old || old.rules.join('\n') !== c.rules.join('\n')) changed.push(c);
  }
  // base chains last: the chains they jump to exist and are filled by then
  changed.sort((a, b) => Number(a.hook !== null) - Number(b.hook !== null));
  for (const c of changed) {
    if (fromChains.has(c.name)) lines.push(`flush chain ${T} ${c.name}`);
    for (const r of c.rules) lines.push(`add rule ${T} ${c.name} ${r}`);
    rewritten += c.rules.length;
  }
  if (rewritten > Math.max(256, total * maxShare)) return null;
  for (const c of from.chains) if (!toChains.has(c.name)) lines.push(`flush chain ${T} ${c.name}`, `delete chain ${T} ${c.name}`);
  for (const s of from.sets) if (!toSets.has(s.name)) lines.push(`delete set ${T} ${s.name}`);
  for (const c of from.counters) if (!toCounters.has(c.name)) lines.push(`delete counter ${T} ${c.name}`);
  return { script: lines.length ? `${lines.join('\n')}\n` : '', operations: lines.length };
}
