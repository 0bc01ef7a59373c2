// The process's open file descriptor limit (RLIMIT_NOFILE). Every connection, event streams
// included, holds a descriptor: once they are all taken, accept() fails and new requests,
// an admin's login among them, go unanswered. Node has no setrlimit, and needs none here: at
// start it raises the soft limit to the hard one itself (node.cc, PlatformInit; tested in
// test/api/event-streams.test.ts). What is left is to know the limit, log it, and keep the
// event streams well inside it. Raising the hard limit is the service manager's job
// (systemd LimitNOFILE=, docker --ulimit nofile=): docs/operations.md, Security.
import fs from 'node:fs';

export interface FdLimit {
  soft: number;
  hard: number;
}

/** The limits from /proc/self/limits (Linux); null where they cannot be read. */
export function openFileLimit(procLimits = '/proc/self/limits'): FdLimit | null {
  let text: string;
  try {
    text = fs.readFileSync(procLimits, 'utf8');
  } catch {
    return null;
  }
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(text);
  if (!m) return null;
  const n = (v: string) => (v === 'unlimited' ? Infinity : Number(v));
  return { soft: n(m[1]), hard: n(m[2]) };
}

/**
 * The event streams this instance serves at most: `configured`, lowered to half the soft
 * descriptor limit so that the other half stays for requests, the store, logs and threads.
 */
export function streamsWithin(configured: number, limit: FdLimit | null): number {
  if (limit === null || !Number.isFinite(limit.soft)) return configured;
  return Math.max(1, Math.min(configured, Math.floor(limit.soft / 2)));
}
