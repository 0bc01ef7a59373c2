// Dynamic set entries in the kernel (issue 40): nft element changes of the sets the renderer
// declares (dataplane/nft.ts, flags interval and timeout), and the cut of established
// connections of an added address. An entry is written as add, delete, add with its timeout
// in one transaction: the first add makes the delete valid whether or not the kernel still
// holds it (nft 1.0.6 has no `destroy`), the last sets the new expiry.
import { NFT_TABLE } from '../dataplane/names';
import { dynamicNftSetName } from '../dataplane/nft';
import type { DynamicSetObj } from '../config/types';
import type { DynamicEntry } from './entry-store';

/** What the kernel side of a data plane offers the dynamic sets (absent: no kernel). */
export interface DynamicKernel {
  /** Runs one nft transaction (serialized with the table's applies). */
  run(script: string): Promise<void>;
  /** Deletes the connection tracking entries from or to these prefixes; how many went. */
  cut(family: 'ipv4' | 'ipv6', prefixes: string[]): Promise<number>;
  /** Set by the dynamic sets: the script that fills every set again, run after each apply. */
  refill: (() => string) | null;
}

const T = `inet ${NFT_TABLE}`;

/** The kernel's timeout of an entry: whole seconds left (at least 1), or none. */
function timeout(e: DynamicEntry, now: number): string {
  return e.expiresAt === 0 ? '' : ` timeout ${Math.max(1, Math.ceil((e.expiresAt - now) / 1000))}s`;
}

/** The lines that add (or refresh) these entries of `set`. */
export function addLines(set: DynamicSetObj, entries: readonly DynamicEntry[], now: number): string[] {
  const name = dynamicNftSetName(set);
  const out: string[] = [];
  for (const e of entries) {
    out.push(`add element ${T} ${name} { ${e.ip} }`, `delete element ${T} ${name} { ${e.ip} }`, `add element ${T} ${name} { ${e.ip}${timeout(e, now)} }`);
  }
  return out;
}

/** The lines that delete these prefixes of `set` (held or not). */
export function deleteLines(set: DynamicSetObj, ips: readonly string[]): string[] {
  const name = dynamicNftSetName(set);
  return ips.flatMap((ip) => [`add element ${T} ${name} { ${ip} }`, `delete element ${T} ${name} { ${ip} }`]);
}
