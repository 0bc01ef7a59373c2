// The answer of a list read from an encoded list (src/session/encoded-list.ts): one slice is
// answered at once, as any cached answer; more are streamed a slice at a time, each written
// once the socket has taken the one before (backpressure: a slow client holds one slice in
// memory, not the whole list twice), yielding to other requests between slices.
import { setImmediate as turn } from 'node:timers/promises';
import type { EncodedList } from '../session/encoded-list';
import type { Logger } from 'pino';
import type { Reply, StreamSink } from './http';

export function listReply(list: EncodedList, log: Logger, headers: Record<string, string> = {}): Reply {
  if (list.sliceCount === 1) return { body: undefined, json: list.slice(0), headers };
  return {
    body: undefined,
    headers: { 'Content-Type': 'application/json', ...headers },
    stream: (out) => void pump(list, out, log),
  };
}

async function pump(list: EncodedList, out: StreamSink, log: Logger): Promise<void> {
  try {
    for (let i = 0; i < list.sliceCount && !out.closed; i++) {
      out.write(list.slice(i));
      await out.writable();
      await turn();
    }
    out.end();
  } catch (e) {
    // a render that throws is a bug; the client must not take a cut answer for a whole one
    log.error({ err: e }, 'list stream failed');
    out.cut();
  }
}
