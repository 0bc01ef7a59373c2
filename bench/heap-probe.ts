// The heap of a daemon child process started with --expose-gc: afterGc() sends SIGUSR2, the
// daemon runs a full collection and logs "heap after gc" (src/main.ts), and the figures of
// that line are answered. Used by the soak benchmark and the leak test.
import type { ChildProcess } from 'node:child_process';

export interface HeapAfterGc {
  heapUsed: number;
  heapTotal: number;
  rss: number;
  external: number;
  arrayBuffers: number;
}

export class HeapProbe {
  private buf = '';
  private waiting: ((h: HeapAfterGc) => void) | null = null;

  /** Reads the daemon's standard output (info-level JSON log lines) from now on. */
  constructor(private readonly proc: ChildProcess) {
    proc.stdout!.on('data', (b: Buffer) => this.take(b.toString()));
  }

  private take(text: string): void {
    this.buf += text;
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (!line.includes('"heap after gc"')) continue;
      const w = this.waiting;
      this.waiting = null;
      w?.(JSON.parse(line) as HeapAfterGc);
    }
  }

  /** The heap after a full collection (rejects when the daemon does not report within a minute). */
  afterGc(): Promise<HeapAfterGc> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the daemon did not report its heap (started without --expose-gc?)')), 60_000);
      this.waiting = (h) => {
        clearTimeout(timer);
        resolve(h);
      };
      this.proc.kill('SIGUSR2');
    });
  }
}
