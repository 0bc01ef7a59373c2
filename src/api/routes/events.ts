// GET /api/events: the Server-Sent Events stream of commits, rollbacks, confirmations,
// sessions and cluster nodes (src/events). The token comes in the Authorization header, as on
// every route (the console reads the stream with fetch(), not EventSource, which cannot send
// one: docs/api.md, Events); each stream stays bound to it and is capped (./event-streams).
import { Type } from '@sinclair/typebox';
import { FwError } from '../../errors';
import type { AppContext } from '../context';
import type { Req, RouteDef, StreamSink } from '../http';
import { EVENT_TYPES, type EventType } from '../../events/types';

/** What a stream needs, when it opens and for as long as it stays open. */
export const EVENTS_PERMISSION = 'read';

const EVENT_ID = /^(0|[1-9]\d{0,15})$/;

/** Last-Event-ID (the header an EventSource sends when it reconnects), else ?last_event_id=. */
function lastEventId(req: Req): number | null {
  const text = req.headers.more?.['last-event-id'] || req.query.get('last_event_id');
  if (text === null || text === '' || text === undefined) return null;
  if (!EVENT_ID.test(text)) throw new FwError('ERR_NET_1004', `Last-Event-ID "${text.slice(0, 40)}" is not an event id`);
  return Number(text);
}

function typeFilter(req: Req): Set<EventType> | null {
  const text = req.query.get('types');
  if (text === null || text === '') return null;
  const types = text.split(',');
  for (const t of types) {
    if (!(EVENT_TYPES as readonly string[]).includes(t)) throw new FwError('ERR_NET_1005', `query "types": "${t}" is not one of ${EVENT_TYPES.join(', ')}`);
  }
  return new Set(types as EventType[]);
}

/** Ends the stream when the token it was opened with expires (the client logs in again and resumes). */
function endAtExpiry(out: StreamSink, expSeconds: number): void {
  const ms = expSeconds * 1000 - Date.now();
  if (!(ms < 2 ** 31 - 1)) return; // beyond setTimeout's range: no expiry to watch
  const timer = setTimeout(() => out.end(), Math.max(0, ms));
  timer.unref();
  out.onClose(() => clearTimeout(timer));
}

export function eventRoutes(ctx: AppContext): RouteDef[] {
  return [{
    method: 'GET', pattern: '/api/events', body: 'none', permission: EVENTS_PERMISSION, requestHeaders: ['last-event-id'],
    doc: {
      tag: 'events',
      summary: 'Server-Sent Events: commit, rollback, confirm, session and node events; resumable with Last-Event-ID',
      response: Type.String({ description: 'a text/event-stream: "id: N", "event: TYPE", "data: JSON" per event, ": heartbeat" comments' }),
      contentType: 'text/event-stream',
      query: {
        types: { schema: Type.String({ pattern: '^[a-z]+(,[a-z]+)*$' }), description: `only these event types, comma separated (${EVENT_TYPES.join(', ')})` },
        last_event_id: { schema: Type.String({ pattern: '^[0-9]+$' }), description: 'resume after this event id (as the Last-Event-ID header does)' },
      },
      // 429: FW_EVENT_STREAMS_PER_USER or FW_EVENT_STREAMS_MAX reached
      errors: [429],
    },
    handler: (req) => {
      const last = lastEventId(req);
      const types = typeFilter(req);
      const slot = ctx.eventStreams.admit(req.user, req.headers.authorization);
      return {
        body: undefined,
        headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
        stream: (out) => {
          slot.attach(out);
          ctx.events.open(out, last, types);
          endAtExpiry(out, req.user.exp);
        },
        release: slot.release, // the client went away before the stream opened
      };
    },
  }];
}
