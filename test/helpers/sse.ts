// A Server-Sent Events reader for the tests: GET /api/events over fetch, parsed into events
// (id, event, data) and comments as they arrive. next() waits for a matching one (bounded).
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { FwEventSchema, ResyncEvent } from '../../src/events/types';

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
  const stream: SseStream = {
    status: r.status, headers: r.headers, error: null, messages, comments,
    async next(match, what = 'an event', timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
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
  let buf = '';
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          parseBlock(block, messages, comments);
          wake();
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return stream;
}

function parseBlock(block: string, messages: SseMessage[], comments: string[]): void {
  let id: string | null = null;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) comments.push(line.slice(1).trim());
    else if (line.startsWith('id: ')) id = line.slice(4);
    else if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  if (!data.length) return;
  const parsed = JSON.parse(data.join('\n'));
  // every event on the wire is one the published schema describes
  const schema = event === 'resync' ? ResyncEvent : FwEventSchema;
  if (!Value.Check(schema, parsed)) throw new Error(`event does not match its schema: ${data.join('\n')}`);
  if (parsed.type !== event || String(parsed.id) !== id) throw new Error(`event line and data disagree: ${block}`);
  messages.push({ id, event, data: parsed });
}
