// Readiness: named checks that must all pass for GET /readyz to answer 200 (a load balancer
// or Kubernetes then sends traffic). app.ts registers the store and the running version;
// other modules (a data plane, cluster membership) register theirs on AppContext.readiness.

/** Resolves when ready; throws or rejects with a message saying why not. */
export type ReadinessCheck = () => void | Promise<void>;

export interface ReadinessReport {
  ready: boolean;
  /** each check's "ok", or why it failed */
  checks: Record<string, string>;
  /** what is wrong without making the instance unready (a Redis without authentication); absent when nothing */
  warnings?: Record<string, string>;
}

export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();
  private readonly warnings = new Map<string, () => string | null>();

  constructor(private readonly timeoutMs = 2000) {}

  /** Adds (or replaces) the check `name`. */
  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /** Adds a warning `name`: shown in the report while `warning` answers one, never failing it. */
  warn(name: string, warning: () => string | null): void {
    this.warnings.set(name, warning);
  }

  /** Runs every check at once; one that takes over the timeout fails. */
  async report(): Promise<ReadinessReport> {
    const checks: Record<string, string> = {};
    await Promise.all([...this.checks].map(async ([name, check]) => {
      checks[name] = await this.run(check);
    }));
    const report: ReadinessReport = { ready: Object.values(checks).every((v) => v === 'ok'), checks };
    const warnings: Record<string, string> = {};
    for (const [name, warning] of this.warnings) {
      const w = warning();
      if (w !== null) warnings[name] = w;
    }
    if (Object.keys(warnings).length) report.warnings = warnings;
    return report;
  }

  private async run(check: ReadinessCheck): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`no answer within ${this.timeoutMs} ms`), this.timeoutMs);
    });
    try {
      return await Promise.race([Promise.resolve().then(check).then(() => 'ok'), late]);
    } catch (e) {
      return e instanceof Error ? (e as Error & { details?: string }).details || e.message : String(e);
    } finally {
      clearTimeout(timer);
    }
  }
}
