// A full garbage collection once a thread has gone quiet after big work (issue 30: RSS at
// 100,000 policies). A commit at that size leaves each thread's heap two to three times its
// live size (measured: the HTTP thread 164 MB used for 74 MB live, the compile thread 111 for
// 61, the deep-analysis thread 105 for 26), and V8 collects it only when the thread allocates
// again: an idle piscina thread does not even run V8's memory reducer. So the daemon's RSS sat
// at 600-1000 MB between commits, of which ~270 MB was garbage.
//
// `gc` is V8's own (the --expose-gc flag set at run time; a new context gets the function):
// the pattern jest's leak detector uses. The collection runs `delayMs` after the last touch,
// so a burst of commits pays for one, after it. A second pass right after the first gave back
// another ~25 MB at 100,000 policies (the pages the first one freed, returned once swept):
// worth it on an idle worker thread, not on the HTTP thread (each pass there is 50-110 ms).
import v8 from 'node:v8';
import vm from 'node:vm';

let collect: (() => void) | null | undefined;

/** V8's full collection of this thread's heap (null where it cannot be had). */
function gcFunction(): (() => void) | null {
  if (collect !== undefined) return collect;
  const own = (globalThis as { gc?: () => void }).gc;
  try {
    if (!own) v8.setFlagsFromString('--expose-gc');
    collect = own ?? (vm.runInNewContext('gc') as () => void);
  } catch {
    collect = null;
  }
  return collect;
}

/** An idle collection one pass, `delayMs` after the last touch (see above). */
export class IdleCollector {
  private timer: NodeJS.Timeout | null = null;
  /** collections run (tests) */
  count = 0;

  /** `passes`: full collections in a row (see above). */
  constructor(private readonly delayMs: number, private readonly passes = 1) {}

  /** Big work is under way: no collection before it ends. */
  busy(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Big work ended: collect `delayMs` from now unless more comes first. */
  touch(): void {
    this.busy();
    this.timer = setTimeout(() => {
      this.timer = null;
      const gc = gcFunction();
      if (!gc) return;
      for (let i = 0; i < this.passes; i++) gc();
      this.count++;
    }, this.delayMs);
    this.timer.unref();
  }
}

/**
 * The HTTP thread's: touched after big work there (a new running version, a whole list
 * encoded), collected 2 s later, one pass.
 */
export const threadGarbage = new IdleCollector(2000);
