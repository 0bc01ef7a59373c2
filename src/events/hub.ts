// The event hub of one instance: services report events to it (emit), the backend numbers
// and keeps them, and every open GET /api/events stream gets each one as a Server-Sent Event.
// An idle subscriber costs its socket and one entry in a Set: one timer writes the heartbeat
// comment to all of them, and an event is formatted once for all.
import type { Logger } from 'pino';
import type { StreamSink } from '../api/http';
import type { EventBackend, EventInput, EventType, FwEvent } from './types';

export interface HubOptions {
  /** FW_EVENTS_HEARTBEAT: the interval of the ": heartbeat" comment on idle streams */
  heartbeatMs: number;
  log: Logger;
}

/** Events read back per store call when a client resumes. */
const PAGE = 500;
/** The reconnection delay a browser's EventSource is told to use (ms). */
const RETRY_MS = 3000;

/** One event as its Server-Sent Event text. */
export function sseText(e: FwEvent): string {
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
}

function resyncText(lastId: number, reason: string): string {
  return `id: ${lastId}\nevent: resync\ndata: ${JSON.stringify({ type: 'resync', id: lastId, reason })}\n\n`;
}

export class EventHub {
  /** the instance id events are recorded with (known once the server listens) */
  origin = '';
  private readonly listeners = new Set<Subscriber>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly backend: EventBackend, private readonly opts: HubOptions) {
    backend.onEvent((e) => {
      const text = sseText(e);
      for (const l of this.listeners) l.event(e, text);
    });
    this.timer = setInterval(() => this.heartbeat(), opts.heartbeatMs);
    this.timer.unref();
  }

  /** Reports an event; never fails the caller (a store outage loses it, and says so in the log). */
  readonly emit = (input: EventInput): void => {
    this.record(input).catch((e: unknown) => this.opts.log.warn({ err: String(e), event: input.type }, 'event not recorded'));
  };

  /** Records an event and resolves to its id once the store holds it. */
  record(input: EventInput): Promise<number> {
    return this.backend.record({ ...input, at: new Date().toISOString(), origin: this.origin } as Omit<FwEvent, 'id'>);
  }

  /**
   * Records an event and waits (at most `ms`) until this instance's streams were given it: on
   * Redis it comes back through pub/sub. A stopping daemon's last word.
   */
  async recordAndDeliver(input: EventInput, ms: number): Promise<void> {
    let seen = 0;
    let wake: () => void = () => undefined;
    const stop = this.subscribe((e) => {
      seen = Math.max(seen, e.id);
      wake();
    });
    try {
      const id = await this.record(input);
      const deadline = Date.now() + ms;
      while (seen < id && Date.now() < deadline) await new Promise<void>((r) => { wake = r; setTimeout(r, 20); });
    } finally {
      stop();
    }
  }

  /** Calls `listener` with every event from now on; answers the function that stops it. */
  subscribe(listener: (e: FwEvent, text: string) => void, heartbeat?: () => void): () => void {
    const sub: Subscriber = { event: listener, heartbeat };
    this.listeners.add(sub);
    return () => this.listeners.delete(sub);
  }

  /**
   * A stream fed by something else (the traffic tail) gets what every stream gets from the
   * hub: the reconnection delay at once (the answer starts), then the heartbeat while open.
   */
  keepAlive(out: StreamSink): void {
    out.onClose(this.subscribe(() => undefined, () => out.write(HEARTBEAT)));
    out.write(`retry: ${RETRY_MS}\n\n`);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  /**
   * Streams events to `out`: those after `lastId` first (when given), then every new one.
   * Live events are collected from the start, so none falls between the replay and the live
   * stream; ids already sent are skipped. When the events after `lastId` are no longer kept
   * (or the id is unknown), a `resync` event tells the client to re-read the state.
   */
  open(out: StreamSink, lastId: number | null, types: ReadonlySet<EventType> | null = null): void {
    let sent = lastId ?? 0;
    let waiting: FwEvent[] | null = lastId === null ? null : [];
    const send = (e: FwEvent, text: string) => {
      if (e.id <= sent) return;
      sent = e.id;
      if (!types || types.has(e.type)) out.write(text);
    };
    const stop = this.subscribe((e, text) => {
      if (waiting) waiting.push(e);
      else send(e, text);
    }, () => out.write(HEARTBEAT));
    out.onClose(stop);
    out.write(`retry: ${RETRY_MS}\n\n`);
    if (lastId === null) return;
    this.replay(lastId).then((r) => {
      if (r.gap) {
        out.write(resyncText(r.lastId, r.gap));
        sent = Math.max(sent, r.lastId);
      }
      for (const e of r.events) send(e, sseText(e));
      for (const e of waiting!) send(e, sseText(e));
      waiting = null;
    }, (e: unknown) => {
      this.opts.log.warn({ err: String(e) }, 'events: could not read the kept events');
      out.end(); // the client reconnects with the same Last-Event-ID
    });
  }

  /** The kept events after `lastId`, or why they cannot be given (then the client resyncs). */
  private async replay(lastId: number): Promise<{ events: FwEvent[]; lastId: number; gap: string }> {
    const events: FwEvent[] = [];
    let top = lastId;
    for (let after = lastId; ;) {
      const page = await this.backend.after(after, PAGE);
      top = page.lastId;
      if (events.length === 0 && lastId > top) return { events: [], lastId: top, gap: `event ${lastId} is unknown here (the newest is ${top})` };
      if (events.length === 0 && lastId < top && page.events[0]?.id !== lastId + 1) {
        return { events: [], lastId: top, gap: `the events after ${lastId} are no longer kept` };
      }
      events.push(...page.events);
      if (page.events.length < PAGE) return { events, lastId: top, gap: '' };
      after = page.events[page.events.length - 1].id;
    }
  }

  private heartbeat(): void {
    for (const l of this.listeners) l.heartbeat?.();
  }

  close(): void {
    clearInterval(this.timer);
  }
}

interface Subscriber {
  event(e: FwEvent, text: string): void;
  heartbeat?: () => void;
}

/** A comment line: keeps proxies and clients from timing an idle stream out. */
const HEARTBEAT = ': heartbeat\n\n';
