// What the instances of one firewall tell each other through the store they share, beside the
// Store contract: notices (new versions, revocations, account changes, events), the numbered
// event log, the node registry, once-only claims and work done once for all (SharedWork).
// Only a shared store has it (the Redis store implements it); its users (src/cluster,
// src/events, the commit queue) see this port, never the store's client or key names.

/** What one instance tells the others through the firewall's channel. */
export type StoreEvent =
  | { type: 'version'; version: number }
  | { type: 'revoked'; jti: string }
  | { type: 'user-deleted'; username: string }
  | { type: 'user-changed'; username: string }
  /** an entry of GET /api/events (src/events), with its cluster-wide id */
  | { type: 'event'; event: { id: number } & Record<string, unknown> }
  /** the result of a piece of shared work was published (SharedWork.put) */
  | { type: 'shared'; what: string };

/** The registries of the cluster: its API instances, and its commit workers. */
export type Registry = 'nodes' | 'workers';

/** One entry of a node's stream: its id ("ms-seq", increasing) and its text. */
export interface StreamEntry {
  id: string;
  value: string;
}

/** Capped streams kept per node (the traffic log of each instance), readable by every instance. */
export interface NodeStreams {
  /** Adds the entries to `node`'s stream in order, trimmed to about `keep` (never fewer); their ids. */
  append(node: string, entries: string[], keep: number): Promise<string[]>;
  /** Entries with ids from `from` to `to` ("-", "+", "(id" exclusive, as XRANGE), at most `count`, oldest or newest first. */
  range(node: string, from: string, to: string, count: number, newestFirst: boolean): Promise<StreamEntry[]>;
  /** The oldest and the newest id kept (null: empty). */
  first(node: string): Promise<string | null>;
  last(node: string): Promise<string | null>;
}

/**
 * Work one instance does for every instance: a lease per piece of work, held while its holder
 * renews it (an instance that dies lets it lapse, and another can take the work over), and the
 * result, kept for a while and announced by a 'shared' notice.
 */
export interface SharedWork {
  /** True when `what` was free (now `by`'s for ttlMs) or already `by`'s (its expiry renewed). */
  claim(what: string, by: string, ttlMs: number): Promise<boolean>;
  /** Frees `what` if `by` still holds it. */
  release(what: string, by: string): Promise<void>;
  /** Keeps `value` as the result of `what` for ttlMs and tells every instance. */
  put(what: string, value: string, ttlMs: number): Promise<void>;
  /** The result of `what`, if one was put and has not expired. */
  get(what: string): Promise<string | null>;
}

export interface ClusterBus {
  /** The traffic logs of the nodes. */
  readonly trafficStreams: NodeStreams;
  /** Work done once for the cluster (the deep analysis of a version). */
  readonly sharedWork: SharedWork;
  /** Calls `listener` with every notice of the channel (this instance's own too). */
  onEvent(listener: (e: StoreEvent) => void): void;
  /** Numbers the event (one counter for the cluster), keeps the newest `keep` and tells every instance. */
  publishEvent(body: Record<string, unknown>, keep: number): Promise<number>;
  /** The kept events after `afterId`, oldest first (at most `count`), and the last id given out. */
  eventsAfter(afterId: number, count: number): Promise<{ events: Array<{ id: number } & Record<string, unknown>>; lastId: number }>;
  /** The version a commit of (sessionId, journalLength) made, if it already happened (a retried job). */
  committedVersion(sessionId: string, journalLength: number): Promise<number | undefined>;
  /** Records (or replaces) `id`'s registration (its heartbeat, JSON) in `registry`. */
  register(registry: Registry, id: string, registration: string): Promise<void>;
  /** Every registration of `registry` by id (rejects with ERR_SYS_4002 when unreachable). */
  registrations(registry: Registry): Promise<Record<string, string>>;
  /** Drops these ids from `registry`. */
  forget(registry: Registry, ids: string[]): Promise<void>;
  /** True for the first caller that claims `what` within `ttlMs`, false for every other: one instance acts on it. */
  claimOnce(what: string, by: string, ttlMs: number): Promise<boolean>;
}
