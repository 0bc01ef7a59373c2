// The embedded store's audit trail: audit.log (one event a line, fsync'd appends with group
// commit) and the entries in memory that listAudit answers from. Bounded per kind: the newest
// FW_AUDIT_KEEP entries other than failed logins are listed, and the newest
// FW_AUDIT_LOGIN_FAILURES_KEEP failed logins, so that no flood of failed logins pushes
// configuration and account changes out. Once a kind has recorded a quarter of its budget more
// than it keeps, its memory is trimmed and the file rewritten with the kept entries of both
// kinds, in id order, each with its id (ids never change). Lines without an id follow the line
// before them (the first line of a file never compacted is id 1).
import { mergeAudit, type AuditCursor } from './audit-merge';
import { cutPartialLastLine, ensureDurableFile, GroupAppender, readJsonLines, replaceAppendLog } from './files';
import type { Logger } from './recovery';
import { auditRecordOf, isLoginFailure, type AuditEntry, type AuditEvent, type AuditQuery } from './types';

/** Entries recorded past `keep` before memory and the file are cut back to `keep`. */
function slackOf(keep: number): number {
  return Math.max(1, Math.floor(keep / 4));
}

/** The audit log's entries in file order with their ids. A line that is not an event is skipped
 * (the log is a record for people, not state the daemon depends on). */
async function loadAudit(file: string, log: Logger): Promise<AuditEntry[]> {
  const lines = await readJsonLines(file);
  const out: AuditEntry[] = [];
  let last = 0; // the id of the line before
  for (const v of lines?.values ?? []) {
    const e = v as Partial<AuditEntry> | null;
    if (!e || typeof e.at !== 'number' || typeof e.user !== 'string' || typeof e.action !== 'string') {
      log.warn({ file }, 'skipped an audit line that is not an event');
      continue;
    }
    last = Number.isSafeInteger(e.id) && (e.id as number) > last ? (e.id as number) : last + 1;
    // lines from before request ids were recorded read with reqId ""
    const event = auditRecordOf({
      at: e.at, user: e.user, action: e.action, details: String(e.details ?? ''), reqId: String(e.reqId ?? ''),
      role: typeof e.role === 'string' ? e.role : undefined, token: typeof e.token === 'string' ? e.token : undefined, payload: e.payload,
    });
    out.push({ ...event, id: last });
  }
  return out;
}

/**
 * An entry as kept in memory: the payload as the JSON text it was written with, parsed again
 * only for the entries a listing answers. Payloads have any shape (a change's body, a whole
 * configuration): kept as objects, up to FW_AUDIT_KEEP of them, each new shape left hidden
 * classes behind and a body cost several times its text (a heap snapshot diff of the soak:
 * the retained heap grew by the commits' change and commit payloads).
 */
interface PackedEntry extends Omit<AuditEntry, 'payload'> {
  payloadJson?: string;
}

function pack(entry: AuditEntry): PackedEntry {
  const { payload, ...rest } = entry;
  return payload === undefined ? rest : { ...rest, payloadJson: JSON.stringify(payload) };
}

function unpack(entry: PackedEntry): AuditEntry {
  const { payloadJson, ...rest } = entry;
  return payloadJson === undefined ? rest : { ...rest, payload: JSON.parse(payloadJson) as unknown };
}

/** The entries kept of each kind (0: all). */
export interface AuditBudgets {
  /** FW_AUDIT_KEEP: entries other than failed logins */
  keep: number;
  /** FW_AUDIT_LOGIN_FAILURES_KEEP: failed logins */
  loginFailuresKeep: number;
}

/** The index of the first entry with an id of at least `id` (entries in id order). */
function indexOf(entries: Array<{ id: number }>, id: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The entries of one kind in memory, oldest first; the newest `keep` are listed (0: all). */
class Kept {
  entries: PackedEntry[];
  /** lines of this kind in the file */
  lines: number;

  constructor(readonly keep: number, entries: AuditEntry[]) {
    this.entries = (keep > 0 ? entries.slice(-keep) : entries).map(pack);
    this.lines = entries.length;
  }

  /** The index of the oldest entry listed. */
  private get lowest(): number {
    return this.keep > 0 ? Math.max(0, this.entries.length - this.keep) : 0;
  }

  listed(): PackedEntry[] {
    return this.entries.slice(this.lowest);
  }

  add(entry: AuditEntry): void {
    this.entries.push(pack(entry));
    this.lines++;
    // past keep + slack, memory is cut back at once
    if (this.keep > 0 && this.entries.length > this.keep + slackOf(this.keep)) this.entries = this.entries.slice(-this.keep);
  }

  /** Whether the file holds more than slack lines of this kind that are no longer listed. */
  overflows(): boolean {
    return this.keep > 0 && this.lines - (this.entries.length - this.lowest) > slackOf(this.keep);
  }

  /** The listed entries with an id below `before`, newest first. */
  cursor(before = Infinity): AuditCursor<PackedEntry> {
    const entries = this.entries; // a trim meanwhile replaces the array, not this one
    const lowest = this.lowest;
    let i = indexOf(entries, before) - 1;
    return { head: () => (i >= lowest ? entries[i] : undefined), next: () => void i-- };
  }
}

export class AuditLog {
  private appender: GroupAppender;
  private compaction: Promise<void> | null = null;
  private lastId: number;
  /** every entry but failed logins */
  private readonly trail: Kept;
  private readonly loginFailures: Kept;

  private constructor(
    private readonly file: string,
    budgets: AuditBudgets,
    /** in id order */
    entries: AuditEntry[],
    private readonly onFailure: (e: Error) => void,
  ) {
    this.appender = GroupAppender.open(file, onFailure);
    this.lastId = entries.length ? entries[entries.length - 1].id : 0;
    this.trail = new Kept(budgets.keep, entries.filter((e) => !isLoginFailure(e)));
    this.loginFailures = new Kept(budgets.loginFailuresKeep, entries.filter(isLoginFailure));
  }

  /** Cuts a torn last line (a crash mid-append), then reads the file. */
  static async open(file: string, budgets: AuditBudgets, log: Logger, onFailure: (e: Error) => void): Promise<AuditLog> {
    const cut = await cutPartialLastLine(file);
    if (cut) log.warn({ file, bytes: cut }, 'cut a torn line off the audit log');
    await ensureDurableFile(file);
    return new AuditLog(file, budgets, await loadAudit(file, log), onFailure);
  }

  /** Records an event durably; it is listed once durable, with the next id. */
  async append(event: AuditEvent): Promise<void> {
    const entry = auditRecordOf(event);
    await this.appender.append(JSON.stringify(entry) + '\n');
    // ids follow the file's line order: appends are written, and resolve, in call order
    this.kindOf(entry).add({ ...entry, id: ++this.lastId });
    this.bound();
  }

  /** The listed entries of both kinds that match, newest first. */
  async list(query: AuditQuery): Promise<AuditEntry[]> {
    return (await mergeAudit(query, this.trail.cursor(query.before), this.loginFailures.cursor(query.before))).map(unpack);
  }

  private kindOf(e: AuditEvent): Kept {
    return isLoginFailure(e) ? this.loginFailures : this.trail;
  }

  /** Once either kind has a quarter of its budget more lines in the file than it lists, the file
   * is rewritten with the listed entries of both, in the background. */
  private bound(): void {
    const kinds = [this.trail, this.loginFailures];
    if (this.compaction || !kinds.some((k) => k.overflows())) return;
    const { appender, done } = replaceAppendLog(this.appender, this.file, () => {
      const listed = kinds.map((k) => k.listed());
      // appends to the new appender count on from here
      kinds.forEach((k, i) => (k.lines = listed[i].length));
      return listed.flat().sort((a, b) => a.id - b.id).map((e) => JSON.stringify(unpack(e)) + '\n').join('');
    }, this.onFailure);
    this.appender = appender;
    this.compaction = done.catch((e: unknown) => this.onFailure(e instanceof Error ? e : new Error(String(e)))).finally(() => {
      this.compaction = null;
    });
  }

  /** Waits for a compaction under way, drains, closes the file. */
  async close(): Promise<void> {
    await this.compaction;
    await this.appender.close();
  }
}
