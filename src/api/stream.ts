// A streamed answer on uWS (GET /api/events): writes are corked (they come from timers and
// other requests, outside uWS's own calls), and respect backpressure: while the socket has
// not taken what was written, later text waits in a bounded queue and goes out from
// onWritable. A client that stops reading is disconnected once the queue is full; an
// event stream client then resumes with Last-Event-ID.
import type uWS from 'uWebSockets.js';
import type { StreamSink } from './http';

/** Text queued for a slow client before it is disconnected. */
const MAX_QUEUED_CHARS = 256 * 1024;

export class ResponseStream implements StreamSink {
  private queue: Array<string | Uint8Array> = [];
  private queuedChars = 0;
  /** uWS holds written text the socket has not taken yet: wait for onWritable */
  private blocked = false;
  private isClosed = false;
  private closeListeners: Array<() => void> = [];
  private writableWaiters: Array<() => void> = [];

  constructor(private readonly res: uWS.HttpResponse, private readonly onFinish: () => void) {
    res.onWritable(() => this.drain());
  }

  get closed(): boolean {
    return this.isClosed;
  }

  write(text: string | Uint8Array): boolean {
    if (this.isClosed) return false;
    if (this.blocked) {
      if (this.queuedChars + text.length > MAX_QUEUED_CHARS) {
        this.end(); // too far behind: let it reconnect and resume
        return false;
      }
      this.queue.push(text);
      this.queuedChars += text.length;
      return true;
    }
    let ok = true;
    this.res.cork(() => { ok = this.res.write(text); });
    if (!ok) this.blocked = true; // uWS keeps this text; the next waits for onWritable
    return true;
  }

  /** onWritable: the socket took what uWS held; send what waited (called by uWS, so corked). */
  private drain(): boolean {
    while (this.queue.length) {
      const text = this.queue.shift()!;
      this.queuedChars -= text.length;
      if (!this.res.write(text)) return true; // held by uWS again: the next onWritable goes on
    }
    this.blocked = false;
    this.wake();
    return true;
  }

  /** Resolves once uWS has handed everything written to the socket, or the stream closed. */
  writable(): Promise<void> {
    if (!this.blocked || this.isClosed) return Promise.resolve();
    return new Promise((resolve) => this.writableWaiters.push(resolve));
  }

  private wake(): void {
    for (const w of this.writableWaiters.splice(0)) w();
  }

  end(): void {
    if (this.isClosed) return;
    this.res.cork(() => this.res.end());
    this.finish();
  }

  /** Closes the connection without completing the answer: the client sees it cut short. */
  cut(): void {
    if (this.isClosed) return;
    this.res.close();
    this.finish();
  }

  /** The client went away (uWS's onAborted): nothing may be written any more. */
  aborted(): void {
    this.finish();
  }

  onClose(listener: () => void): void {
    if (this.isClosed) listener();
    else this.closeListeners.push(listener);
  }

  private finish(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.queue = [];
    this.queuedChars = 0;
    this.onFinish();
    this.wake();
    for (const l of this.closeListeners.splice(0)) l();
  }
}
