// The client side of the partition tests, Jepsen style: writers that make changes through
// every instance and a committer, each recording every request with its answer (a history),
// and the checker that reads every instance after healing and judges the history against it.
// A request answered 200 must have happened; one answered 503/504 or not at all may or may
// not have (both are allowed, and counted); anything else must not have.

/** One request and its answer. status 0: no answer (timeout, connection failure). */
export interface Op {
  kind: 'change' | 'commit';
  /** the address created (change) or the commit's description (commit) */
  key: string;
  ip?: string;
  instance: number;
  start: number;
  end: number;
  status: number;
  code?: string;
  /** the version a commit answered 200 names */
  version?: number;
}

const REQUEST_TIMEOUT_MS = 20_000;

async function send(url: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    const r = await fetch(url + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await r.text();
    let parsed: unknown;
    try { parsed = JSON.parse(text); } catch { parsed = text; }
    return { status: r.status, body: parsed };
  } catch {
    return { status: 0, body: undefined };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A commit through instance `instance` of `urls`, described `key`, recorded with its answer. */
export async function sendCommit(urls: string[], token: string, instance: number, key: string): Promise<Op> {
  const start = Date.now();
  const r = await send(urls[instance], token, 'POST', '/api/config/commit', { description: key });
  return { kind: 'commit', key, instance, start, end: Date.now(), status: r.status, code: r.body?.code, version: r.status === 200 ? Number(r.body.version) : undefined };
}

/** Writers and a committer over `urls`, recording a history until stop(). */
export class Workload {
  readonly ops: Op[] = [];
  private stopped = false;
  private readonly loops: Promise<void>[];

  /**
   * `tag` makes names unique across schedules (and `round` within one: the first octets of the
   * addresses); `writers` loops of changes, a commit every `commitEveryMs`.
   */
  constructor(private readonly urls: string[], private readonly token: string, readonly tag: string, round: number, writers: number, commitEveryMs: number) {
    this.loops = Array.from({ length: writers }, (_, k) => this.writer(k, round));
    this.loops.push(this.committer(commitEveryMs));
  }

  private async writer(k: number, round: number): Promise<void> {
    // a fresh name every time: a change answered 503 may have been made, and is never retried
    for (let i = 0; !this.stopped; i++) {
      const instance = (k + i) % this.urls.length;
      const key = `${this.tag}-w${k}-${i}`;
      const ip = `10.${round & 255}.${(k * 32 + (i >> 8)) & 255}.${i & 255}/32`;
      const start = Date.now();
      const r = await send(this.urls[instance], this.token, 'POST', '/api/addresses', { name: key, ips: [ip] });
      this.ops.push({ kind: 'change', key, ip, instance, start, end: Date.now(), status: r.status, code: r.body?.code });
      if (r.status === 409 && r.body?.code === 'ERR_SYS_3001') await send(this.urls[instance], this.token, 'POST', '/api/config/begin');
      if (r.status !== 200) await sleep(100);
    }
  }

  private async committer(every: number): Promise<void> {
    for (let j = 0; !this.stopped; j++) {
      await sleep(every);
      if (this.stopped) return;
      const instance = j % this.urls.length;
      this.ops.push(await sendCommit(this.urls, this.token, instance, `${this.tag}-c${j}`));
      await send(this.urls[(instance + 1) % this.urls.length], this.token, 'POST', '/api/config/begin');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }
}

/** What one instance holds after healing. */
interface Seen {
  running: number;
  candidate: Record<string, { ips: unknown[] }>;
  committed: Record<string, { ips: unknown[] }>;
  versions: Array<{ version: number; description?: string; time?: string }>;
  docs: Map<number, Record<string, unknown>>;
}

export interface Verdict {
  changes: number;
  acknowledged: number;
  /** acknowledged changes missing on some instance: must be empty */
  lost: string[];
  /** changes answered 503/504 or not at all, by what the instances show of them */
  indeterminate: { happened: number; notHappened: number };
  /** changes refused (4xx) that are there anyway: must be empty */
  refusedButApplied: string[];
  /** names present that no writer sent, or with an address other than the one sent: must be empty */
  phantoms: string[];
  commits: { acknowledged: number; other: number };
  /** acknowledged commits whose version names another commit, or lacks a change acknowledged before it: must be empty */
  commitProblems: string[];
  /** instances that disagree on the running version, the version list or a version's document: must be empty */
  divergence: string[];
  /** answers by status (and code) */
  answers: Record<string, number>;
}

async function seenBy(url: string, token: string, versions: number[]): Promise<Seen> {
  const get = async (path: string) => {
    const r = await send(url, token, 'GET', path);
    if (r.status !== 200) throw new Error(`${url}${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const status = await get('/api/status');
  const session = await get('/api/config/session');
  const committed = await get('/api/addresses');
  const candidate = session.active ? await get('/api/addresses?config=candidate') : committed;
  const list = await get('/api/config/versions');
  const docs = new Map<number, Record<string, unknown>>();
  for (const v of versions) {
    // a version answered 200 to a commit and missing here is a lost commit: the checker says so
    const r = await send(url, token, 'GET', `/api/config/versions/${v}`);
    if (r.status === 200) docs.set(v, r.body);
  }
  return { running: Number(status.version), candidate, committed, versions: list, docs };
}

/** Names of the addresses a version's document holds (a serialized document lists them, sorted). */
function namesOf(version: Record<string, unknown>): Set<string> {
  const list = (version as { config?: { addresses?: Array<{ name: string }> } }).config?.addresses ?? [];
  return new Set(list.map((a) => a.name));
}

/** An address as sent ("10.1.0.0/32"), from either form an answer may hold it in. */
function cidr(ip: unknown): string {
  if (typeof ip === 'string') return ip;
  const { ip: bytes, mask } = ip as { ip: number[]; mask: number[] };
  const bits = mask.reduce((n, b) => n + b.toString(2).replace(/0/g, '').length, 0);
  return `${bytes.join('.')}/${bits}`;
}

/** Reads every instance and judges `ops` against what they hold. */
export async function check(urls: string[], token: string, ops: Op[]): Promise<Verdict> {
  const acked = ops.filter((o) => o.status === 200);
  const ackedCommits = acked.filter((o) => o.kind === 'commit');
  const seen = await Promise.all(urls.map((u) => seenBy(u, token, [...new Set(ackedCommits.map((c) => c.version!))])));
  const changes = ops.filter((o) => o.kind === 'change');
  const sent = new Map(changes.map((o) => [o.key, o]));
  const tag = changes[0]?.key.split('-w')[0] ?? '';
  const has = (s: Seen, key: string) => key in s.candidate || key in s.committed;

  const verdict: Verdict = {
    changes: changes.length,
    acknowledged: changes.filter((o) => o.status === 200).length,
    lost: [], indeterminate: { happened: 0, notHappened: 0 }, refusedButApplied: [], phantoms: [],
    commits: { acknowledged: ackedCommits.length, other: ops.filter((o) => o.kind === 'commit' && o.status !== 200).length },
    commitProblems: [], divergence: [], answers: {},
  };
  for (const o of ops) {
    const k = `${o.kind} ${o.status}${o.code ? ` ${o.code}` : ''}`;
    verdict.answers[k] = (verdict.answers[k] ?? 0) + 1;
  }
  for (const o of changes) {
    const present = seen.map((s) => has(s, o.key));
    if (o.status === 200) {
      if (present.some((p) => !p)) verdict.lost.push(`${o.key} (via d${o.instance}, missing on ${present.map((p, i) => (p ? '' : `d${i}`)).filter(Boolean).join(',')})`);
    } else if (o.status === 0 || o.status >= 500) {
      if (present.some((p) => p)) verdict.indeterminate.happened++;
      else verdict.indeterminate.notHappened++;
    } else if (present.some((p) => p)) {
      verdict.refusedButApplied.push(`${o.key} (${o.status} ${o.code})`);
    }
  }
  seen.forEach((s, i) => {
    for (const [name, a] of [...Object.entries(s.candidate), ...Object.entries(s.committed)]) {
      if (!name.startsWith(`${tag}-w`)) continue;
      const o = sent.get(name);
      if (!o || a.ips.length !== 1 || cidr(a.ips[0]) !== o.ip) verdict.phantoms.push(`${name} on d${i}: ${JSON.stringify(a)}`);
    }
  });
  const changesAcked = changes.filter((o) => o.status === 200);
  for (const c of ackedCommits) {
    seen.forEach((s, i) => {
      const meta = s.versions.find((v) => v.version === c.version);
      if (!meta || meta.description !== c.key) verdict.commitProblems.push(`${c.key} answered version ${c.version}; d${i} lists ${meta ? `"${meta.description}"` : 'no such version'}`);
      const doc = s.docs.get(c.version!);
      if (!doc) return;
      const names = namesOf(doc);
      const missing = changesAcked.filter((o) => o.end < c.start && !names.has(o.key));
      if (missing.length) verdict.commitProblems.push(`${c.key} (version ${c.version}) on d${i} lacks ${missing.length} changes acknowledged before it, e.g. ${missing[0].key}`);
    });
  }
  const [first, ...rest] = seen;
  rest.forEach((s, j) => {
    const i = j + 1;
    if (s.running !== first.running) verdict.divergence.push(`d${i} serves version ${s.running}, d0 ${first.running}`);
    if (JSON.stringify(s.versions) !== JSON.stringify(first.versions)) verdict.divergence.push(`d${i} lists other versions than d0`);
    if (JSON.stringify(Object.keys(s.committed).sort()) !== JSON.stringify(Object.keys(first.committed).sort())) verdict.divergence.push(`d${i} serves other addresses than d0`);
    for (const [v, doc] of s.docs) if (JSON.stringify([...namesOf(doc)].sort()) !== JSON.stringify([...namesOf(first.docs.get(v) ?? {})].sort())) verdict.divergence.push(`version ${v} differs between d${i} and d0`);
  });
  return verdict;
}

/** Polls until every instance answers /api/status with the store reachable and one running version. */
export async function converged(urls: string[], token: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const st = await Promise.all(urls.map((u) => send(u, token, 'GET', '/api/status')));
    const ok = st.every((s) => s.status === 200 && s.body.store_reachable === true) && new Set(st.map((s) => s.body.version)).size === 1;
    // a write through each instance must work again (each connection found the primary)
    if (ok) {
      const probes = await Promise.all(urls.map((u) => send(u, token, 'GET', '/api/config/session')));
      if (probes.every((p) => p.status === 200)) return true;
    }
    await sleep(500);
  }
  return false;
}

export { send };
