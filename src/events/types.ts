// The events of GET /api/events: what happened to the configuration and the cluster, each
// with an id that increases across the cluster. The schemas are the wire format (the `data:`
// line of each Server-Sent Event); fwctl and the console read them with these types.
import { Type, type Static } from '@sinclair/typebox';

const IsoTime = Type.String({ format: 'date-time' });

/** What every event carries: its id, when and on which instance it was recorded. */
const base = {
  id: Type.Integer({ minimum: 1, description: 'increases by one per event, cluster-wide; also the SSE id: line' }),
  at: IsoTime,
  origin: Type.String({ description: 'the id of the instance that recorded it' }),
};

export const CommitEvent = Type.Object({
  ...base,
  type: Type.Literal('commit'),
  version: Type.Integer({ minimum: 1 }),
  author: Type.String(),
  description: Type.String(),
  summary: Type.String(),
  confirm_by: Type.Optional(Type.String({ format: 'date-time', description: 'a commit confirmed: its deadline' })),
}, { additionalProperties: false });

export const RollbackEvent = Type.Object({
  ...base,
  type: Type.Literal('rollback'),
  version: Type.Integer({ minimum: 0, description: 'the version loaded into the candidate' }),
  user: Type.String(),
}, { additionalProperties: false });

export const ConfirmEvent = Type.Object({
  ...base,
  type: Type.Literal('confirm'),
  state: Type.Union([Type.Literal('pending'), Type.Literal('confirmed'), Type.Literal('reverted')]),
  version: Type.Integer({ minimum: 1, description: 'the version committed with confirm_timeout' }),
  user: Type.String({ description: 'pending: the committer; confirmed: who confirmed (or committed after); reverted: "system"' }),
  deadline: Type.Optional(IsoTime),
  restored_version: Type.Optional(Type.Integer({ minimum: 0, description: 'reverted: the version restored' })),
  new_version: Type.Optional(Type.Integer({ minimum: 1, description: 'reverted: the version the revert committed' })),
}, { additionalProperties: false });

export const SessionEvent = Type.Object({
  ...base,
  type: Type.Literal('session'),
  state: Type.Union([Type.Literal('begun'), Type.Literal('discarded'), Type.Literal('expired'), Type.Literal('committed')]),
  owner: Type.String(),
  user: Type.String({ description: 'who did it (the owner, another admin forcing a discard, or "system")' }),
}, { additionalProperties: false });

export const NodeEvent = Type.Object({
  ...base,
  type: Type.Literal('node'),
  state: Type.Union([Type.Literal('joined'), Type.Literal('left'), Type.Literal('version')]),
  node: Type.String({ description: 'the instance the event is about' }),
  address: Type.Optional(Type.String()),
  version: Type.Optional(Type.Integer({ minimum: 0, description: 'version: the running version it serves now' })),
}, { additionalProperties: false });

/** A change of an HA node's VRRP state (issue 39: keepalived's notify, seen by the node's daemon). */
export const HaEvent = Type.Object({
  ...base,
  type: Type.Literal('ha'),
  node: Type.String({ description: 'the node whose state changed' }),
  state: Type.Union([Type.Literal('master'), Type.Literal('backup'), Type.Literal('fault'), Type.Literal('disabled')]),
  previous: Type.Union([Type.Literal('master'), Type.Literal('backup'), Type.Literal('fault'), Type.Literal('disabled')]),
  since: IsoTime,
}, { additionalProperties: false });

/** An external list's content changed, or its fetch failed anew (issue 40): run-time state, not a version. */
export const ListEvent = Type.Object({
  ...base,
  type: Type.Literal('list'),
  address: Type.String({ description: 'the address that is the list' }),
  url: Type.String(),
  state: Type.Union([Type.Literal('updated'), Type.Literal('failed')], { description: 'updated: a fetch changed the content; failed: a fetch failed for a new reason (the last good list stays)' }),
  entries: Type.Integer({ minimum: 0, description: 'prefixes of the list now (before the FW_DYNAMIC_MAX_ENTRIES cut)' }),
  added: Type.Integer({ minimum: 0 }),
  removed: Type.Integer({ minimum: 0 }),
  error: Type.Optional(Type.String({ description: 'failed: why' })),
}, { additionalProperties: false });

/** An FQDN address resolved to other prefixes, or its resolution failed (issue 40): run-time state, not a version. */
export const FqdnEvent = Type.Object({
  ...base,
  type: Type.Literal('fqdn'),
  state: Type.Union([Type.Literal('changed'), Type.Literal('failed')], { description: 'changed: other prefixes are in use; failed: a resolution failed (the last good answer stays)' }),
  address: Type.String(),
  fqdn: Type.String(),
  resolved: Type.Array(Type.String(), { description: 'the prefixes in use now' }),
  previous: Type.Array(Type.String(), { description: 'the prefixes in use before' }),
  resolvedAt: Type.Union([IsoTime, Type.Null()], { description: 'the last good answer (null: none yet)' }),
  error: Type.Optional(Type.String({ description: 'failed: why' })),
}, { additionalProperties: false });

/** Sent instead of the missed events when Last-Event-ID is older than what is kept. */
export const ResyncEvent = Type.Object({
  type: Type.Literal('resync'),
  id: Type.Integer({ minimum: 0, description: 'the newest id: resume from here after re-reading the state' }),
  reason: Type.String(),
}, { additionalProperties: false });

export const FwEventSchema = Type.Union([CommitEvent, RollbackEvent, ConfirmEvent, SessionEvent, NodeEvent, HaEvent, ListEvent, FqdnEvent]);
export type FwEvent = Static<typeof FwEventSchema>;
export type EventType = FwEvent['type'];
export const EVENT_TYPES: readonly EventType[] = ['commit', 'rollback', 'confirm', 'session', 'node', 'ha', 'list', 'fqdn'];
export type ResyncNotice = Static<typeof ResyncEvent>;

type Distribute<T> = T extends unknown ? Omit<T, 'id' | 'at' | 'origin'> : never;
/** An event as its source states it: the hub adds id, at and origin. */
export type EventInput = Distribute<FwEvent>;

/** Where events are recorded and numbered: one process (embedded store) or the cluster (Redis). */
export interface EventBackend {
  /** Numbers and keeps the event (resolves to its id); it reaches every subscriber through `deliver` (here or on every instance). */
  record(event: Omit<FwEvent, 'id'>): Promise<number>;
  /** The kept events after `afterId` (at most `count`, oldest first) and the newest id given out. */
  after(afterId: number, count: number): Promise<{ events: FwEvent[]; lastId: number }>;
  /** Called with every event recorded anywhere, in id order. */
  onEvent(deliver: (e: FwEvent) => void): void;
}

/** Anything that may report an event (services are given this, not the hub). */
export type EventEmitterFn = (e: EventInput) => void;
