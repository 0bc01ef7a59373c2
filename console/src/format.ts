// How API values read in tables: addresses from their octet arrays, empty references as "any".

/** "10.0.0.0/8" or "2001:db8::/32" from the read model's octets and mask. */
export function cidr(ip: number[], mask: number[]): string {
  const prefix = mask.reduce((n, b) => n + popcount(b), 0);
  if (ip.length === 4) return `${ip.join('.')}/${prefix}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip[i] << 8) | ip[i + 1]).toString(16));
  return `${compressV6(groups)}/${prefix}`;
}

function popcount(b: number): number {
  let n = 0;
  for (let x = b; x; x >>= 1) n += x & 1;
  return n;
}

/** The longest run of zero groups as "::" (RFC 5952). */
function compressV6(groups: string[]): string {
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

export const anyIfEmpty = (s: string | null | undefined): string => (s ? s : 'any');

export function when(iso: string | null): string {
  if (!iso) return '';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** A connection's end: "10.0.0.1:443", "[2001:db8::1]:443", or the address alone without a port. */
export const endpoint = (ip: string, port: number | null): string => (port === null ? ip : ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);

/** "1 change", "2 changes": a count with its noun. */
export const plural = (n: number, noun: string, many = `${noun}s`): string => `${n} ${n === 1 ? noun : many}`;

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
/** Names in natural order: h-ext-12 before h-ext-102 (digits compared as numbers). */
export const naturalCompare = (a: string, b: string): number => collator.compare(a, b);
