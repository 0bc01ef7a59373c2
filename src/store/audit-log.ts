// The embedded store's audit trail: audit.log (one event a line, fsync'd appends with group
// commit) and the entries in memory that listAudit answers from. Bounded (FW_AUDIT_KEEP): the
// newest `keep` entries are listed; once a quarter more have been recorded, memory is trimmed
// and the file rewritten with the kept ones, each with its id (ids never change). Lines without
// an id follow the line before them (the first line of a file never compacted is id 1).
import { cutPartialLastLine, ensureDurableFile, GroupAppender, readJsonLines, replaceAppendLog } from './files';
import type { Logger } from './recovery';
import { auditMatches, auditRecordOf, type AuditEntry, type AuditEvent, type AuditQuery } from './types';

/** Entries recorded past `keep` before memory and the file are cut back to `keep`. */
function slackOf(keep: number): number {
  return Math.max(1, Math.floor(keep / 4));
}

/** The audit log's entries in file order with their ids. A line that is not an event is skipped
 * (the log is a record for people, not state the daemon depends on). */
async function loadAudit(file: string, log: Logger): Promise<{ entries: AuditEntry[]; lines: number }> {
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
  return { entries: out, lines: lines?.values.length ?? 0 };
}

export class AuditLog {
  private appender: GroupAppender;
  private compaction: Promise<void> | null = null;
  private lastId: number;

  private constructor(
    private readonly file: string,
    /** entries listed, the newest; 0: all */
    private readonly keep: number,
    /** oldest first */
    private entries: AuditEntry[],
    /** lines in the file */
    private lines: number,
    private readonly onFailure: (e: Error) => void,
  ) {
    this.appender = GroupAppender.open(file, onFailure);
    this.lastId = entries.length ? entries[entries.length - 1].id : 0;
  }

  /** Cuts a torn last line (a crash mid-append), then reads the file. */
  static async open(file: string, keep: number, log: Logger, onFailure: (e: Error) => void): Promise<AuditLog> {
    const cut = await cutPartialLastLine(file);
    if (cut) log.warn({ file, bytes: cut }, 'cut a torn line off the audit log');
    await ensureDurableFile(file);
    const { entries, lines } = await loadAudit(file, log);
    return new AuditLog(file, keep, keep > 0 ? entries.slice(-keep) : entries, lines, onFailure);
  }

  /** Records an event durably; it is listed once durable, with the next id. */
  async append(event: AuditEvent): Promise<void> {
    const entry = auditRecordOf(event);
    await this.appender.append(JSON.stringify(entry) + '\n');
    // ids follow the file's line order: appends are written, and resolve, in call order
    this.entries.push({ ...entry, id: ++this.lastId });
    this.lines++;
    this.bound();
  }

  /** The newest `keep` entries that match, newest first. */
  list(query: AuditQuery): AuditEntry[] {
    const all = this.entries;
    const out: AuditEntry[] = [];
    if (!all.length) return out;
    const lowest = this.keep > 0 ? Math.max(0, all.length - this.keep) : 0;
    const start = Math.min(all.length, (query.before ?? Infinity) - all[0].id);
    for (let i = start - 1; i >= lowest && out.length < query.limit; i--) {
      if (auditMatches(all[i], query)) out.push(all[i]);
    }
    return out;
  }

  /** Past keep + slack: memory is cut back at once, the file rewritten in the background. */
  private bound(): void {
    if (this.keep === 0) return;
    const limit = this.keep + slackOf(this.keep);
    if (this.entries.length > limit) this.entries = this.entries.slice(-this.keep);
    if (this.lines <= limit || this.compaction) return;
    const { appender, done } = replaceAppendLog(this.appender, this.file, () => {
      const kept = this.entries.slice(-this.keep);
      this.lines = kept.length; // appends to the new appender count on from here
      return kept.map((e) => JSON.stringify(e) + '\n').join('');
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
