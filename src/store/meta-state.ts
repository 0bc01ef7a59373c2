// What meta.json holds: the running version number, the session the last commit ended, the
// JWT secret, the users and the revoked tokens. Kept in memory (reads never touch the disk)
// and rewritten atomically after each change; the rename of meta.json is also the commit
// point of a commit. Rewrites are coalesced: changes made while a write is in flight share
// the next one, so the file never goes backwards and concurrent callers cost one write.
import { atomicWriteFile } from './files';
import type { MetaFile } from './recovery';
import { ADMIN_ROLE, sortUsers, userOf, type ApiTokenRecord, type UserRecord } from './types';

export class MetaState {
  running: number;
  lastEndedSession: string | null;
  secret: string | null;
  readonly users = new Map<string, UserRecord>();
  /** jti -> expiry in unix ms */
  readonly revoked = new Map<string, number>();
  /** the last commit confirmed that was confirmed (0: none) */
  confirmed: number;
  /** API tokens by hash */
  readonly apiTokens = new Map<string, ApiTokenRecord>();

  private waiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  private loop: Promise<void> | null = null;

  constructor(
    private readonly file: string,
    meta: MetaFile,
    /** Told of a failed write; returns the error the waiting callers get. */
    private readonly onFailure: (e: unknown) => Error,
  ) {
    this.running = meta.running;
    this.lastEndedSession = meta.lastEndedSession;
    this.secret = meta.secret;
    this.confirmed = typeof meta.confirmed === 'number' ? meta.confirmed : 0;
    for (const u of meta.users) this.users.set(u.username, userOf(u)); // a file from before roles: admins
    for (const t of meta.apiTokens ?? []) this.apiTokens.set(t.hash, { ...t });
    const now = Date.now();
    for (const [jti, exp] of Object.entries(meta.revoked)) {
      if (typeof exp === 'number' && exp >= now) this.revoked.set(jti, exp);
    }
  }

  /** Whether `username` is the only account of ADMIN_ROLE. */
  isLastAdmin(username: string): boolean {
    if (this.users.get(username)?.role !== ADMIN_ROLE) return false;
    for (const u of this.users.values()) if (u.username !== username && u.role === ADMIN_ROLE) return false;
    return true;
  }

  /** An owner's token of that name. */
  apiTokenNamed(owner: string, name: string): ApiTokenRecord | undefined {
    for (const t of this.apiTokens.values()) if (t.owner === owner && t.name === name) return t;
    return undefined;
  }

  sortedUsers(): UserRecord[] {
    return sortUsers([...this.users.values()].map((u) => ({ ...u })));
  }

  /** Resolves once meta.json holds every change made before the call. */
  persist(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (!this.loop) this.loop = this.run();
    });
  }

  /** Waits for the writes in flight. */
  async idle(): Promise<void> {
    while (this.loop) await this.loop;
  }

  /** The content of meta.json now; revocations that have expired are dropped. */
  toJSON(): MetaFile {
    const now = Date.now();
    const revoked: Record<string, number> = {};
    for (const [jti, exp] of this.revoked) {
      if (exp < now) this.revoked.delete(jti);
      else revoked[jti] = exp;
    }
    return {
      format: 1,
      running: this.running,
      lastEndedSession: this.lastEndedSession,
      secret: this.secret,
      users: this.sortedUsers(),
      revoked,
      confirmed: this.confirmed,
      apiTokens: [...this.apiTokens.values()],
    };
  }

  private async run(): Promise<void> {
    try {
      while (this.waiters.length) {
        const batch = this.waiters;
        this.waiters = [];
        try {
          await atomicWriteFile(this.file, JSON.stringify(this)); // a snapshot taken now
        } catch (e) {
          const err = this.onFailure(e);
          for (const w of batch.concat(this.waiters)) w.reject(err);
          this.waiters = [];
          return;
        }
        for (const w of batch) w.resolve();
      }
    } finally {
      this.loop = null;
    }
  }
}
