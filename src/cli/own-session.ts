// The configuration session fwctl apply begins itself, and only that one: discarded when the
// work fails, when the user says no, and when fwctl is interrupted (SIGINT, SIGTERM) while it
// holds it. Without this, a Ctrl-C during a load left the session locked until its idle expiry
// (issue 43). A commit already sent is awaited rather than raced: its outcome is said as it is.
import { type ApiClient } from './api';
import { endProgress } from './output';

const SIGNAL_EXIT: Readonly<Record<'SIGINT' | 'SIGTERM', number>> = { SIGINT: 130, SIGTERM: 143 };

type Phase = 'beginning' | 'held' | 'committing' | 'committed' | 'released';

export class OwnSession {
  private phase: Phase = 'beginning';
  /** the request in flight whose outcome decides what an interruption does (begin or commit) */
  private pending: Promise<unknown> = Promise.resolve();
  private interrupted = false;
  private readonly onSignal = (signal: 'SIGINT' | 'SIGTERM') => { void this.interrupt(signal); };

  private constructor(private readonly api: ApiClient) {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  /** Begins the session, the signal handlers in place before the request leaves. */
  static async begin(api: ApiClient): Promise<OwnSession> {
    const s = new OwnSession(api);
    const begun = api.request('POST', '/api/config/begin');
    s.pending = begun;
    try {
      await begun;
    } catch (e) {
      s.stopListening();
      throw e; // not ours: nothing to discard
    }
    if (s.phase === 'beginning') s.phase = 'held';
    return s;
  }

  /** Runs the commit; an interruption meanwhile waits for its answer. */
  async commit<T>(run: () => Promise<T>): Promise<T> {
    this.phase = 'committing';
    const r = run();
    this.pending = r;
    try {
      const out = await r;
      this.phase = 'committed';
      return out;
    } catch (e) {
      this.phase = 'held';
      throw e;
    }
  }

  /**
   * Where the work goes once interrupted: it waits for the interruption to end fwctl, so a
   * request failing because of it (the load after the discard) is not reported as a failure.
   */
  async unlessInterrupted(e: unknown): Promise<never> {
    if (this.interrupted) await new Promise<never>(() => undefined);
    throw e;
  }

  /** Ends fwctl's hold: discards the session unless it was committed. */
  async release(): Promise<void> {
    this.stopListening();
    if (this.phase === 'held') await this.discard();
    this.phase = 'released';
  }

  private async discard(): Promise<boolean> {
    this.phase = 'released';
    // never ?force=true: a session someone else took meanwhile is not fwctl's to end
    return this.api.request('POST', '/api/config/discard').then(() => true, () => false);
  }

  private async interrupt(signal: 'SIGINT' | 'SIGTERM'): Promise<void> {
    if (this.interrupted) process.exit(SIGNAL_EXIT[signal]); // a second Ctrl-C: leave at once
    this.interrupted = true;
    endProgress();
    await this.pending.catch(() => undefined);
    let said: string;
    if (this.phase === 'committed') said = ': the commit had already been made, it stays';
    else if (this.phase === 'held') said = (await this.discard()) ? ': the session fwctl began is discarded, nothing was applied' : ': the session fwctl began could not be discarded (fwctl discard)';
    else said = ': no session was taken';
    process.stderr.write(`interrupted (${signal})${said}\n`);
    process.exit(SIGNAL_EXIT[signal]);
  }

  private stopListening(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}
