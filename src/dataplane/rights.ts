// What FW_DATAPLANE=linux needs of the process: CAP_NET_ADMIN (root has it) to change
// nftables, links, addresses and routes, and CAP_SYS_ADMIN as well to enter FW_NETNS. The
// programs the daemon runs (nft, ip, dnsmasq) need them too, so the capability set of this
// process is read for the message and a harmless probe (`nft list tables`, a read that the
// kernel refuses without CAP_NET_ADMIN) decides.
import fs from 'node:fs';
import type { Host } from './host';

const CAP_NET_ADMIN = 12;
const CAP_SYS_ADMIN = 21;

/** The effective capability bits of this process (/proc/self/status CapEff), or null where unknown. */
export function effectiveCapabilities(status = '/proc/self/status'): bigint | null {
  try {
    const m = /^CapEff:\s*([0-9a-f]+)$/m.exec(fs.readFileSync(status, 'utf8'));
    return m ? BigInt(`0x${m[1]}`) : null;
  } catch {
    return null;
  }
}

/** The capabilities named in `needed` that `eff` lacks ([] when eff is unknown). */
function lacking(eff: bigint | null, needed: Array<[string, number]>): string[] {
  if (eff === null) return [];
  return needed.filter(([, bit]) => (eff & (1n << BigInt(bit))) === 0n).map(([name]) => name);
}

/**
 * Why this process cannot change the kernel it is given, in words an operator acts on; null
 * when it can. Never changes anything.
 */
export async function missingRights(host: Host, eff = effectiveCapabilities()): Promise<string | null> {
  const needed: Array<[string, number]> = [['CAP_NET_ADMIN', CAP_NET_ADMIN]];
  if (host.netns) needed.push(['CAP_SYS_ADMIN', CAP_SYS_ADMIN]);
  const lacks = lacking(eff, needed);
  let refused: string | null = null;
  await host.exec('nft', ['list', 'tables']).catch((e: unknown) => {
    refused = e instanceof Error ? e.message.trim() : String(e);
  });
  if (!lacks.length && refused === null) return null;
  if (!lacks.length && !/not permitted/i.test(refused ?? '')) return `FW_DATAPLANE=linux: nft does not answer (${refused})`;
  const what = host.netns ? 'root, or CAP_NET_ADMIN and CAP_SYS_ADMIN (FW_NETNS)' : 'root or CAP_NET_ADMIN';
  const why = lacks.length ? `this process lacks ${lacks.join(' and ')}` : `the kernel refused a read of nftables (${refused})`;
  return `FW_DATAPLANE=linux needs ${what} for the daemon and the programs it runs (nft, ip, dnsmasq): ${why}; nothing is enforced until it runs with them`;
}
