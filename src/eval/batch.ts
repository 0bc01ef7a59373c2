// Packets and answers as struct-of-arrays: what the batch endpoint parses 10,000 packets into
// and evaluates into without allocating per packet (parsePacketBatch in packet.ts,
// CompiledConfig.evalBatchInto, CompiledConfig.batchJson). A single eval uses the same
// layout with one slot, so both paths run the same pipeline code.
import type { Family } from '../config/net';
import type { Packet } from './types';

/** The most packets a batch request may hold. */
export const MAX_BATCH = 10000;

/** Parsed, validated packets (see Packet for the meaning of the fields). */
export class PacketBatch {
  /** 4 or 6 */
  readonly fam: Uint8Array;
  /** 8 words per packet, network order: source 0..3, destination 4..7 (IPv4: one word, 3 zeros) */
  readonly words: Int32Array;
  readonly protocol: Uint8Array;
  /** 0 when the protocol is not tcp/udp and no port was given */
  readonly dstPort: Int32Array;
  /** -1: not given (accepted and ignored by evaluation; kept so that parsePacket can answer it) */
  readonly srcPort: Int32Array;
  // Names stay the strings of the request (references, not copies): they are resolved against
  // the configuration when evaluated, which comes after parsing (parse errors come first).
  readonly inInterface: Array<string | null>;
  readonly srcZone: Array<string | null>;
  readonly dstZone: Array<string | null>;

  /** Packets in use, at most `capacity` (the body scanner sizes a batch before counting). */
  length: number;

  constructor(readonly capacity: number) {
    this.length = capacity;
    this.fam = new Uint8Array(capacity);
    this.words = new Int32Array(capacity * 8);
    this.protocol = new Uint8Array(capacity);
    this.dstPort = new Int32Array(capacity);
    this.srcPort = new Int32Array(capacity);
    this.inInterface = new Array<string | null>(capacity).fill(null);
    this.srcZone = new Array<string | null>(capacity).fill(null);
    this.dstZone = new Array<string | null>(capacity).fill(null);
  }

  family(i: number): Family {
    return this.fam[i] as Family;
  }

  /** Packet `p` (parsed already) into slot `i`, with no interface or zone named. */
  put(i: number, p: Packet): void {
    const w = this.words;
    const at = i * 8;
    this.fam[i] = p.family;
    w[at] = p.s0;
    w[at + 1] = p.s1;
    w[at + 2] = p.s2;
    w[at + 3] = p.s3;
    w[at + 4] = p.d0;
    w[at + 5] = p.d1;
    w[at + 6] = p.d2;
    w[at + 7] = p.d3;
    this.protocol[i] = p.protocol;
    this.dstPort[i] = p.dstPort;
    this.srcPort[i] = p.srcPort ?? -1;
    this.inInterface[i] = null;
    this.srcZone[i] = null;
    this.dstZone[i] = null;
  }
}

/** action and reason of an answer, one code */
export const ALLOW_POLICY = 0;
export const DENY_POLICY = 1;
export const DENY_DEFAULT = 2;
export const DENY_NO_ROUTE = 3;
/** never forwarded (issue 41): to a connected subnet's broadcast address or 255.255.255.255; to multicast */
export const DENY_BROADCAST = 4;
export const DENY_MULTICAST = 5;
/** to the firewall itself (issue 41), no local policy matched: the links' management shortcuts allowed it, or nothing did */
export const ALLOW_LOCAL = 6;
export const DENY_LOCAL = 7;
/** the codes without a policy, DENY_DEFAULT..DENY_LOCAL: one answer slot each (answer-slots.ts) */
export const DENY_REASONS = 6;
/** to the firewall itself, a local policy matched (its index follows the policies' in BatchAnswers.policy) */
export const ALLOW_LOCAL_POLICY = 8;
export const DENY_LOCAL_POLICY = 9;

/** Each code's action and reason (the answer forms, answer-json.ts and answer-objects.ts). */
export const CODES: ReadonlyArray<readonly [number, 'allow' | 'deny', 'policy' | 'default-deny' | 'no-route' | 'broadcast' | 'multicast' | 'local-policy']> = [
  [ALLOW_POLICY, 'allow', 'policy'],
  [DENY_POLICY, 'deny', 'policy'],
  [DENY_DEFAULT, 'deny', 'default-deny'],
  [DENY_NO_ROUTE, 'deny', 'no-route'],
  [DENY_BROADCAST, 'deny', 'broadcast'],
  [DENY_MULTICAST, 'deny', 'multicast'],
  [ALLOW_LOCAL, 'allow', 'local-policy'],
  [DENY_LOCAL, 'deny', 'local-policy'],
  [ALLOW_LOCAL_POLICY, 'allow', 'local-policy'],
  [DENY_LOCAL_POLICY, 'deny', 'local-policy'],
];

/**
 * Answers as indexes into the compiled configuration's tables; CompiledConfig turns a slot
 * into an EvalResult (eval) or into JSON bytes (batchJson).
 */
export class BatchAnswers {
  /** ALLOW_POLICY, DENY_POLICY, DENY_DEFAULT, DENY_NO_ROUTE, DENY_BROADCAST or DENY_MULTICAST */
  readonly code: Uint8Array;
  /** zone index 1..Z, 0: none */
  readonly srcZone: Int32Array;
  readonly dstZone: Int32Array;
  /** route index (meta.routes; the egress interface is the route's), -1: none */
  readonly route: Int32Array;
  /** NAT rule index (meta.nat), -1: none */
  readonly nat: Int32Array;
  /** a masquerade: the interface whose address is the translated address; else -1 */
  readonly natIf: Int32Array;
  /** policy index (rule order), -1: none */
  readonly policy: Int32Array;

  /** Answers in use, at most `capacity`. */
  length: number;

  constructor(readonly capacity: number) {
    this.length = capacity;
    this.code = new Uint8Array(capacity);
    this.srcZone = new Int32Array(capacity);
    this.dstZone = new Int32Array(capacity);
    this.route = new Int32Array(capacity);
    this.nat = new Int32Array(capacity);
    this.natIf = new Int32Array(capacity);
    this.policy = new Int32Array(capacity);
  }
}

// Reuse. A 10,000-packet request needs about 3.5 MB of ArrayBuffers outside the V8 heap (body
// 0.8, batch 0.5, answers 0.25, reply 2), and their growth is what starts full garbage
// collections of the whole heap (configurations and their compiled tables included). The
// batch and the answer slots are reused: a few MB held for good once batches are used.

/** Batches from this size on come from the pool (smaller ones are cheap to allocate). */
const POOLED = 1024;
const POOL_SIZE = 4; // concurrent batch requests served without allocating
const pool: PacketBatch[] = [];

/**
 * A PacketBatch of at least `capacity` slots, length `capacity`; large ones from a pool.
 * Give it back with releaseBatch when done (a batch lives across the await of the request,
 * so each request in flight holds its own).
 */
export function takeBatch(capacity: number): PacketBatch {
  if (capacity < POOLED) return new PacketBatch(capacity);
  let b = pool.pop();
  if (b === undefined || b.capacity < capacity) b = new PacketBatch(Math.max(capacity, MAX_BATCH));
  b.length = capacity;
  return b;
}

/** Returns a batch to the pool; it must not be used after. Its names are dropped (they are
 * the request's strings). */
export function releaseBatch(b: PacketBatch): void {
  if (b.capacity < POOLED || pool.length >= POOL_SIZE || pool.includes(b)) return;
  b.inInterface.fill(null);
  b.srcZone.fill(null);
  b.dstZone.fill(null);
  pool.push(b);
}

let answers: BatchAnswers | null = null;

/**
 * Answer slots for n packets, shared: only for a synchronous evaluate-then-serialize (as
 * CompiledConfig.evalBatchJson does); the next call reuses them.
 */
export function scratchAnswers(n: number): BatchAnswers {
  if (answers === null || answers.capacity < n) answers = new BatchAnswers(Math.max(n, MAX_BATCH));
  answers.length = n;
  return answers;
}
