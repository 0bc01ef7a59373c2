// A Server-Sent Events reader for the tests: GET /api/events over fetch, parsed into events
// (id, event, data) and comments as they arrive. next() waits for a matching one (bounded).
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { FwEventSchema, ResyncEvent } from '../../src/events/types';
import { TrafficEventSchema, TrafficResyncSchema } from '../../src/connections/traffic-record';
import { SseParser, type SseMessage as RawMessage } from '../../src/cli/sse-parser';

if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v));

export interface SseMessage {
  id: string | null;
  event: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** the error body when status is not 200 */
  error: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  messages: SseMessage[];
  comments: string[];
  /** Resolves when the server ends the stream (not after close()). */
  ended: Promise<void>;
  /** Waits for the first message (from the start) matching `match`, not yet taken by next(). */
  next(match: (m: SseMessage) => boolean, what?: string, timeoutMs?: number): Promise<SseMessage>;
  /** Waits until a comment line matching `re` has arrived. */
  comment(re: RegExp, timeoutMs?: number): Promise<string>;
  close(): void;
}

export async function openEvents(url: string, path = '/api/events', headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const r = await fetch(url + path, { headers, signal: abort.signal });
  const messages: SseMessage[] = [];
  const comments: string[] = [];
  const taken = new Set<SseMessage>();
  let wake: () => void = () => undefined;
  let failure: Error | null = null;
  let markEnded: () => void = () => undefined;
  const ended = new Promise<void>((res) => { markEnded = res; });
  const stream: SseStream = {
    status: r.status, headers: r.headers, error: null, messages, comments, ended,
    async next(match, what = 'an event', timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (failure) throw failure;
        const m = messages.find((x) => !taken.has(x) && match(x));
        if (m) {
          taken.add(m);
          return m;
        }
        if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms; got ${JSON.stringify(messages.map((x) => x.data))}`);
        await new Promise<void>((res) => { wake = res; setTimeout(res, 100); });
      }
    },
    async comment(re, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const c = comments.find((x) => re.test(x));
        if (c !== undefined) return c;
        if (Date.now() > deadline) throw new Error(`no comment ${re} within ${timeoutMs} ms`);
        await new Promise<void>((res) => { wake = res; setTimeout(res, 100); });
      }
    },
    close: () => abort.abort(),
  };
  if (r.status !== 200) {
    stream.error = await r.json();
    return stream;
  }
  const reader = r.body!.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser((m) => {
    try {
      messages.push(checked(m));
    } catch (e) {
      failure = e as Error; // reported by the next next()
    }
    wake();
  }, (text) => {
    comments.push(text);
    wake();
  });
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return markEnded();
        parser.push(decoder.decode(value, { stream: true }));
      }
    } catch {
      // aborted by close()
    }
  })();
  return stream;
}

/** The message with its data parsed, checked against the published schema and its own id and event lines. */
function checked(m: RawMessage): SseMessage {
  const parsed = JSON.parse(m.data);
  // the traffic log's live tail has ids of its own ("ms-seq")
  const traffic = /-/.test(m.id ?? '');
  const schema = m.event === 'resync' ? (traffic ? TrafficResyncSchema : ResyncEvent) : m.event === 'traffic' ? TrafficEventSchema : FwEventSchema;
  if (!Value.Check(schema, parsed)) throw new Error(`event does not match its schema: ${m.data}`);
  if (parsed.type !== m.event || String(parsed.id) !== m.id) throw new Error(`event line and data disagree: ${JSON.stringify(m)}`);
  return { id: m.id, event: m.event, data: parsed };
}
