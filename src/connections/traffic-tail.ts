// The live tail of a traffic log (GET /api/events?types=traffic): each new record of one node
// as a Server-Sent Event whose id is the record's, so a client that reconnects with
// Last-Event-ID gets the records it missed from the store first (or a `resync` event when
// they were dropped by the cap). This node's records come from its TrafficLog as they are
// kept; another node's are read from the shared store every second.
import type { StreamSink } from '../api/http';
import type { TrafficLog } from './traffic-log';
import type { TrafficRecord } from './traffic-record';
import { compareIds } from './traffic-store';

/** Records read back per store call when a client resumes, and per poll of another node. */
const PAGE = 500;
const POLL_MS = 1000;

export function trafficEventText(r: TrafficRecord): string {
  return `id: ${r.id}\nevent: traffic\ndata: ${JSON.stringify({ type: 'traffic', ...r })}\n\n`;
}

function resyncText(newest: string, reason: string): string {
  return `id: ${newest}\nevent: resync\ndata: ${JSON.stringify({ type: 'resync', id: newest, reason })}\n\n`;
}

export interface TailOptions {
  node: string;
  /** whether `node` is this instance (its records arrive as they are kept) */
  local: boolean;
  /** resume after this record id (Last-Event-ID) */
  lastId: string | null;
  match: (r: TrafficRecord) => boolean;
}

export function openTrafficTail(log: TrafficLog, out: StreamSink, o: TailOptions): void {
  let sent = o.lastId;
  const send = (r: TrafficRecord) => {
    if (sent !== null && compareIds(r.id, sent) <= 0) return;
    sent = r.id;
    if (o.match(r)) out.write(trafficEventText(r));
  };
  /** the records after `sent` from the store */
  const catchUp = async (): Promise<void> => {
    for (;;) {
      const { records, gap } = await log.store.after(o.node, sent!, PAGE);
      if (gap) {
        // as the event hub does: the client re-reads the log (GET /api/logs/traffic) and goes on from the newest
        const newest = (await log.store.lastId(o.node)) ?? '0-0';
        out.write(resyncText(newest, `the records after ${sent} are no longer kept`));
        sent = newest;
        return;
      }
      for (const r of records) send(r);
      if (records.length < PAGE) return;
    }
  };
  const failed = () => out.end(); // the client reconnects with the same Last-Event-ID
  if (o.local) {
    let waiting: TrafficRecord[] | null = o.lastId === null ? null : [];
    const stop = log.onRecord((r) => {
      if (waiting) waiting.push(r);
      else send(r);
    });
    out.onClose(stop);
    if (waiting === null) return;
    catchUp().then(() => {
      for (const r of waiting!) send(r);
      waiting = null;
    }, failed);
    return;
  }
  let timer: NodeJS.Timeout | null = null;
  const poll = async () => {
    if (sent === null) sent = (await log.store.lastId(o.node)) ?? '0-0';
    else await catchUp();
    if (!out.closed) timer = setTimeout(() => void poll().catch(failed), POLL_MS);
  };
  out.onClose(() => { if (timer) clearTimeout(timer); });
  poll().catch(failed);
}
