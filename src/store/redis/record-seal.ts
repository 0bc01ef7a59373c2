// Account and API-token records in Redis carry a MAC keyed by a key derived from
// FW_JWT_SECRET (src/keyed-mac.ts, purpose "redis-records"): anyone who can write to Redis
// but does not hold the secret cannot add an account or a token that the daemon honours
// (issue 38: `HSET fw:{name}:users rogue {...}` used to give a working admin login). The MAC
// covers the record's kind, its hash field (the username, the token's hash: a record moved
// to another name fails) and its JSON; it is the record's last field, `mac`, so the Lua
// scripts that read a record's fields (owner, role, id) read it as before.
import { deriveKey, keyedMac, macMatches } from '../../keyed-mac';

export type SealedKind = 'user' | 'api-token';

/** Why a record was ignored: it has no MAC (an older version wrote it: adopt it), or a wrong one. */
export type IgnoredReason = 'unsealed' | 'forged';

export interface IgnoredRecord {
  kind: SealedKind;
  /** the hash field: a username, or the first characters of a token's hash */
  field: string;
  reason: IgnoredReason;
}

/** How many ignored records a seal remembers having reported (each is reported once). */
const REPORTED_MAX = 1000;

export class RecordSeal {
  private readonly key: Buffer;
  private readonly reported = new Set<string>();

  /** `report` is told of each record ignored, once per record (its field and MAC). */
  constructor(secret: string, private readonly report: (r: IgnoredRecord) => void = () => undefined) {
    this.key = deriveKey(secret, 'redis-records');
  }

  private mac(kind: SealedKind, field: string, json: string): string {
    return keyedMac(this.key, kind, field, json);
  }

  /** The record as stored: its JSON with the MAC as the last field. */
  seal(kind: SealedKind, field: string, record: object): string {
    return JSON.stringify({ ...record, mac: this.mac(kind, field, JSON.stringify(record)) });
  }

  /** Whether `text` (as read from Redis) is a record this cluster wrote, and why not. */
  check(kind: SealedKind, field: string, text: string): { record: Record<string, unknown> } | { reason: IgnoredReason } {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { reason: 'forged' };
    }
    if (typeof parsed !== 'object' || parsed === null) return { reason: 'forged' };
    const { mac, ...record } = parsed;
    if (mac === undefined) return { reason: 'unsealed' };
    return macMatches(this.mac(kind, field, JSON.stringify(record)), mac) ? { record } : { reason: 'forged' };
  }

  /** The record without its MAC when the MAC is right; else undefined, reported once. */
  open<T>(kind: SealedKind, field: string, text: string): T | undefined {
    const r = this.check(kind, field, text);
    if ('record' in r) return r.record as T;
    const shown = kind === 'api-token' ? `${field.slice(0, 8)}...` : field.slice(0, 64);
    const once = `${kind}\n${field}\n${text.length}\n${text.slice(-48)}`;
    if (!this.reported.has(once)) {
      if (this.reported.size >= REPORTED_MAX) this.reported.clear();
      this.reported.add(once);
      this.report({ kind, field: shown, reason: r.reason });
    }
    return undefined;
  }
}

/** A record's JSON without its MAC, unchecked (what a deletion answers). */
export function unsealed(text: string): string {
  const { mac: _mac, ...record } = JSON.parse(text) as Record<string, unknown>;
  return JSON.stringify(record);
}
