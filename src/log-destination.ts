// The daemon's log on standard output: buffered, asynchronous writes (one write syscall per
// ~4 KiB instead of one per line), written out at least every second, and drained before the
// process exits.
//
// Draining never blocks on a reader that is gone. sonic-boom 4 (pino's destination) retries
// a synchronous write that fails with EPIPE forever, and pino calls that synchronous flush
// when the process exits. So a daemon whose log reader had died (a log shipper, the parent
// that started it) hung on SIGTERM until it was killed. The drain here is asynchronous and
// bounded: a broken pipe ends it at once (pino then turns the destination into a no-op), and
// a reader that takes no more within the deadline loses the log rather than the stop.
import pino from 'pino';

type SonicBoom = ReturnType<typeof pino.destination>;

export interface LogDestination {
  /** what pino writes to */
  stream: SonicBoom;
  /** writes out what is buffered, without waiting for it */
  flush(): void;
  /** the last call: stops the periodic flush and writes out what is buffered; after `ms`
   * without done, the log is given up */
  drain(ms: number): Promise<void>;
}

export function logDestination(flushEveryMs: number): LogDestination {
  const stream = pino.destination({ sync: false, minLength: 4096 });
  // a quiet daemon's last lines would wait in the buffer until 4 KiB more came (hours, on an
  // idle standby): written out within flushEveryMs whatever the traffic
  const timer = setInterval(() => stream.flush(), flushEveryMs).unref();
  let givenUp = false;
  const giveUp = () => {
    givenUp = true;
    // what pino itself does on EPIPE: nothing more is written, and exit does not wait
    stream.write = () => true;
    stream.flushSync = () => undefined;
  };
  return {
    stream,
    flush: () => {
      if (!givenUp) stream.flush();
    },
    drain: (ms) => new Promise<void>((resolve) => {
      clearInterval(timer);
      if (givenUp) return resolve();
      const deadline = setTimeout(() => {
        giveUp();
        resolve();
      }, ms);
      // the callback's error is fsync's on a pipe (EINVAL) or the EPIPE pino has handled
      stream.flush(() => {
        clearTimeout(deadline);
        resolve();
      });
    }),
  };
}
