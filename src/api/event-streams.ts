// The open GET /api/events streams and the credentials they were opened with. A stream lives
// for hours, far beyond the one authentication of its request, so each stays bound to its
// credential: re-authenticated through the TokenService whenever that forgets anything (a
// revocation, a logout, a changed or deleted account, here or told by another instance) and
// every `recheckMs` against the store itself; a stream whose credential no longer
// authenticates is ended. Each stream also holds a socket, a file descriptor, for as long as
// it is open: their number is capped per account and on this instance (429 beyond), so that
// one account cannot take the descriptors every other request needs.
import type { Logger } from 'pino';
import { FwError, isFwError } from '../errors';
import { allows, type PermissionNeed } from '../auth/roles';
import type { AuthUser } from '../auth/user';
import type { StreamSink } from './http';

export interface StreamLimits {
  /** FW_EVENT_STREAMS_PER_USER: open streams of one account on this instance */
  perUser: number;
  /** FW_EVENT_STREAMS_MAX (lowered to fit the descriptor limit): open streams on this instance */
  total: number;
  /** FW_EVENT_STREAMS_RECHECK: how often every stream's credential is verified against the store */
  recheckMs: number;
}

/** What the credentials are checked with (the TokenService). */
export interface StreamAuthority {
  /** the request's check: the cache first, the store for what it forgot */
  authenticate(header: string): AuthUser | Promise<AuthUser>;
  /** the store's answer, not the cache's */
  reverify(header: string): Promise<AuthUser>;
  onForget(listener: () => void): void;
}

/** A stream admitted under the caps: it counts from admission until it closes. */
export interface StreamSlot {
  /** Binds the opened stream: checked from now on, its slot freed when it closes. */
  attach(out: StreamSink): void;
  /** Frees the slot of a stream that never opened (the client went away first). */
  release(): void;
}

/** How long a client refused for the caps is told to wait (a slot frees when a stream closes). */
export const CAP_RETRY_AFTER_SEC = 30;

interface Held {
  header: string;
  username: string;
  out: StreamSink | null; // null until attached
}

export class EventStreams {
  private readonly held = new Set<Held>();
  private readonly perUser = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  /** the checks of every stream, one after the other */
  private passes: Promise<void> = Promise.resolve();
  /** a pass through the cache is queued and not begun: later forgets are covered by it */
  private queued = false;

  constructor(private readonly auth: StreamAuthority, readonly limits: StreamLimits, private readonly need: PermissionNeed, private readonly log: Logger) {
    auth.onForget(() => this.checkAll(false));
    this.timer = setInterval(() => this.checkAll(true), limits.recheckMs);
    this.timer.unref();
  }

  /** Open streams on this instance. */
  get size(): number {
    return this.held.size;
  }

  /** A slot for a stream of `user`, who presented `header`; 429 ERR_SEC_5007 beyond a cap. */
  admit(user: AuthUser, header: string): StreamSlot {
    const mine = this.perUser.get(user.username) ?? 0;
    if (mine >= this.limits.perUser) {
      throw tooMany(`${user.username} has ${mine} event streams open on this instance, the most FW_EVENT_STREAMS_PER_USER allows: close one first`);
    }
    if (this.held.size >= this.limits.total) {
      throw tooMany(`this instance has ${this.held.size} event streams open, the most it serves (FW_EVENT_STREAMS_MAX, or half its file descriptor limit)`);
    }
    const h: Held = { header, username: user.username, out: null };
    this.held.add(h);
    this.perUser.set(user.username, mine + 1);
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      this.held.delete(h);
      const left = (this.perUser.get(h.username) ?? 1) - 1;
      if (left > 0) this.perUser.set(h.username, left);
      else this.perUser.delete(h.username);
    };
    return {
      attach: (out) => {
        h.out = out;
        out.onClose(free);
        // a forget between this request's authentication and now was not seen by the passes:
        // checked once more (a cached credential answers at once)
        void this.verify([h], false);
      },
      release: free,
    };
  }

  /** Queues a check of every open stream: `fresh` against the store, else as requests are checked. */
  private checkAll(fresh: boolean): void {
    if (!fresh && this.queued) return;
    if (!fresh) this.queued = true;
    this.passes = this.passes.then(() => {
      if (!fresh) this.queued = false;
      return this.verify([...this.held], fresh);
    });
  }

  /** Ends the streams whose credential no longer authenticates (each credential checked once). */
  private async verify(streams: Held[], fresh: boolean): Promise<void> {
    const byHeader = new Map<string, Held[]>();
    for (const h of streams) {
      if (h.out === null || h.out.closed) continue;
      const list = byHeader.get(h.header);
      if (list) list.push(h);
      else byHeader.set(h.header, [h]);
    }
    await Promise.all([...byHeader].map(async ([header, list]) => {
      const reason = await this.refusal(header, fresh);
      if (reason === null) return;
      for (const h of list) h.out!.end();
      this.log.info({ username: list[0].username, streams: list.length, reason }, 'event streams ended: their credential no longer authenticates');
    }));
  }

  /** Why a credential no longer opens a stream, or null when it still does (or cannot be told now). */
  private async refusal(header: string, fresh: boolean): Promise<string | null> {
    try {
      const user = await (fresh ? this.auth.reverify(header) : this.auth.authenticate(header));
      return allows(user.role, this.need) ? null : `role ${user.role} may no longer read`;
    } catch (e) {
      if (isFwError(e) && e.status === 401) return e.details;
      // the store unreachable: kept, and checked again after the outage (a forget) or next pass
      this.log.warn({ err: isFwError(e) ? e.details : String(e) }, 'event streams: a credential could not be checked');
      return null;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}

function tooMany(details: string): FwError {
  return new FwError('ERR_SEC_5007', details, 'too many event streams', { 'Retry-After': String(CAP_RETRY_AFTER_SEC) });
}
