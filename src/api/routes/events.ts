// GET /api/events: the Server-Sent Events stream of commits, rollbacks, confirmations,
// sessions and cluster nodes (src/events). The token comes in the Authorization header, as on
// every route (the console reads the stream with fetch(), not EventSource, which cannot send
// one: docs/api.md, Events); each stream stays bound to it and is capped (./event-streams).
import { Type } from '@sinclair/typebox';
import { FwError } from '../../errors';
import type { AppContext } from '../context';
import type { Req, RouteDef, StreamSink } from '../http';
import { EVENT_TYPES, type EventType } from '../../events/types';
import { parseTrafficFilter, trafficMatcher } from '../../connections/traffic-filter';
import { isTrafficId } from '../../connections/traffic-store';
import { openTrafficTail } from '../../connections/traffic-tail';
import { trafficFilterQuery } from './traffic';
import { NODE_QUERY, nodeOf } from '../node-forward';

/** What a stream needs, when it opens and for as long as it stays open. */
export const EVENTS_PERMISSION = 'read';

const EVENT_ID = /^(0|[1-9]\d{0,15})$/;

/** The traffic log's live tail: a stream of its own (its ids are the log's, not the events'). */
const TRAFFIC = 'traffic';

/** Last-Event-ID (the header an EventSource sends when it reconnects), else ?last_event_id=. */
function lastEventText(req: Req): string | null {
  const text = req.headers.more?.['last-event-id'] || req.query.get('last_event_id');
  return text === null || text === '' || text === undefined ? null : text;
}

function lastEventId(req: Req): number | null {
  const text = lastEventText(req);
  if (text === null) return null;
  if (!EVENT_ID.test(text)) throw new FwError('ERR_NET_1004', `Last-Event-ID "${text.slice(0, 40)}" is not an event id`);
  return Number(text);
}

function lastTrafficId(req: Req): string | null {
  const text = lastEventText(req);
  if (text !== null && !isTrafficId(text)) throw new FwError('ERR_NET_1004', `Last-Event-ID "${text.slice(0, 40)}" is not a traffic record id`);
  return text;
}

/** The types asked for; 'traffic' stands alone. */
function typeFilter(req: Req): Set<EventType> | typeof TRAFFIC | null {
  const text = req.query.get('types');
  if (text === null || text === '') return null;
  const types = text.split(',');
  if (types.includes(TRAFFIC)) {
    if (types.length > 1) throw new FwError('ERR_NET_1005', 'query "types": traffic is a stream of its own (its ids are the traffic log\'s); ask for it alone');
    return TRAFFIC;
  }
  for (const t of types) {
    if (!(EVENT_TYPES as readonly string[]).includes(t)) throw new FwError('ERR_NET_1005', `query "types": "${t}" is not one of ${[...EVENT_TYPES, TRAFFIC].join(', ')}`);
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
      summary: 'Server-Sent Events: commit, rollback, confirm, session and node events, or the traffic log\'s live tail; resumable with Last-Event-ID',
      response: Type.String({ description: 'a text/event-stream: "id: N", "event: TYPE", "data: JSON" per event, ": heartbeat" comments' }),
      contentType: 'text/event-stream',
      query: {
        types: { schema: Type.String({ pattern: '^[a-z]+(,[a-z]+)*$' }), description: `only these event types, comma separated (${EVENT_TYPES.join(', ')}); or traffic alone: the live tail of a traffic log (ids are its record ids; the filters and node below apply)` },
        last_event_id: { schema: Type.String({ pattern: '^[0-9]+(-[0-9]+)?$' }), description: 'resume after this event id (as the Last-Event-ID header does); a record id for traffic' },
        ...trafficFilterQuery,
        node: NODE_QUERY,
      },
      // 429: FW_EVENT_STREAMS_PER_USER or FW_EVENT_STREAMS_MAX reached
      errors: [429],
    },
    handler: async (req) => {
      const types = typeFilter(req);
      let open: (out: StreamSink) => void;
      if (types === TRAFFIC) {
        const filter = parseTrafficFilter(req.query);
        const lastId = lastTrafficId(req);
        const node = await nodeOf(ctx, req);
        open = (out) => {
          ctx.events.keepAlive(out);
          openTrafficTail(ctx.traffic, out, { node, local: node === ctx.nodes.id, lastId, match: trafficMatcher(filter) });
        };
      } else {
        const last = lastEventId(req);
        open = (out) => ctx.events.open(out, last, types);
      }
      const slot = ctx.eventStreams.admit(req.user, req.headers.authorization);
      return {
        body: undefined,
        headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
        stream: (out) => {
          slot.attach(out);
          open(out);
          endAtExpiry(out, req.user.exp);
        },
        release: slot.release, // the client went away before the stream opened
      };
    },
  }];
}
