// Failed logins in the audit trail, bounded and aggregated, so that a flood of them writes
// little. (That they cannot push configuration and account changes out of the trail is the
// store's part: they are kept within FW_AUDIT_LOGIN_FAILURES_KEEP, never counted in
// FW_AUDIT_KEEP; src/store/audit-merge.ts.) Per window (FW_LOGIN_WINDOW):
// - the first failure of a (name, address) pair is recorded at once ("from <address>", with
//   its request id, as its log line);
// - the pair's further failures are counted, and recorded as one entry when the window ends
//   ("from <address>: N more within W s", with the last one's request id);
// - past PAIRS_PER_WINDOW pairs, failures are only counted, into one entry for the window
//   (user "", "N failed logins of other names or addresses ...").
// So a window adds at most 2 x PAIRS_PER_WINDOW + 1 entries whatever is sent, and memory holds
// at most PAIRS_PER_WINDOW pairs. Each instance of a cluster counts its own.
import type { Logger } from 'pino';
import { LOGIN_FAILED_ACTION, type Store } from '../store/types';

/** Pairs itemized per window. */
const PAIRS_PER_WINDOW = 20;

interface PairCount {
  user: string;
  from: string;
  /** failures after the first, this window */
  more: number;
  /** the request id of the last one */
  reqId: string;
}

export class FailedLogins {
  private pairs = new Map<string, PairCount>();
  /** failures of pairs past PAIRS_PER_WINDOW, this window */
  private unlisted = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly store: Store, private readonly windowSec: number, private readonly log: Logger) {
    this.timer = setInterval(() => void this.flush(), windowSec * 1000);
    this.timer.unref();
  }

  /** One failed login of `username` (a valid name) from `from`, by request `reqId`. */
  async record(username: string, from: string, reqId: string): Promise<void> {
    const key = `${from} ${username}`; // names hold no spaces
    const pair = this.pairs.get(key);
    if (pair) {
      pair.more++;
      pair.reqId = reqId;
    } else if (this.pairs.size >= PAIRS_PER_WINDOW) {
      this.unlisted++;
    } else {
      this.pairs.set(key, { user: username, from, more: 0, reqId });
      await this.store.audit({ at: Date.now(), user: username, action: LOGIN_FAILED_ACTION, details: `from ${from}`, reqId });
    }
  }

  /** Records what the window counted and starts the next; never rejects (a failed write is logged). */
  async flush(): Promise<void> {
    const pairs = [...this.pairs.values()].filter((p) => p.more > 0);
    const unlisted = this.unlisted;
    this.pairs = new Map();
    this.unlisted = 0;
    const within = `within ${this.windowSec} s`;
    const at = Date.now();
    const writes = pairs.map((p) => this.store.audit({ at, user: p.user, action: LOGIN_FAILED_ACTION, details: `from ${p.from}: ${p.more} more ${within}`, reqId: p.reqId }));
    if (unlisted > 0) {
      const details = `${unlisted} failed logins of other names or addresses ${within} (more than ${PAIRS_PER_WINDOW} pairs failed)`;
      writes.push(this.store.audit({ at, user: '', action: LOGIN_FAILED_ACTION, details, reqId: '' }));
    }
    await Promise.all(writes).catch((err: unknown) => this.log.warn({ err: String(err) }, 'failed logins could not be audited'));
  }

  /** Stops the window and records what it counted. */
  close(): Promise<void> {
    clearInterval(this.timer);
    return this.flush();
  }
}
