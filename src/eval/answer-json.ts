// The JSON body of a batch answer written straight into bytes. Every piece of an answer that
// depends on the configuration (a zone name, an egress interface with its route, a NAT rule,
// a policy) is serialized once per compiled configuration, by JSON.stringify itself, into one
// byte arena. A whole answer is assembled from its 6 to 8 fragments once and interned
// (answer-slots.ts: per policy, while its zones, route and NAT are the same), so a batch is
// one copy of an answer's bytes per packet into one Buffer. What it replaces: up to 4 answer
// objects per packet, JSON.stringify walking them (about 7 ms for 10,000) and the UTF-8
// encoding of the 2 MB string on its way out (about 2 ms). The bytes equal
// JSON.stringify({version, results}) of the answer objects eval() builds: the key order below
// is EvalResult's (tests compare byte for byte).
// Built at the first batch of a configuration: about 20 ms for 20,000 policies.
import { masqueradeAddress, type ImageMeta } from './image';
import { CODES, type BatchAnswers } from './batch';
import { AnswerSlots } from './answer-slots';
import type { NatAnswer, RouteAnswer } from './types';
import { BytePool } from '../byte-pool';

const j = JSON.stringify;

/** Fragments as [offset, length] pairs into one byte arena. */
class Fragments {
  private readonly texts: string[] = [];

  add(text: string): number {
    this.texts.push(text);
    return this.texts.length - 1;
  }

  /** Encodes every fragment once: the arena and, per fragment id, its start and length. */
  seal(): { arena: Uint8Array; start: Int32Array; len: Int32Array } {
    const arena = Buffer.from(this.texts.join(''), 'utf8');
    const start = new Int32Array(this.texts.length);
    const len = new Int32Array(this.texts.length);
    let off = 0;
    for (let k = 0; k < this.texts.length; k++) {
      const n = Buffer.byteLength(this.texts[k], 'utf8');
      start[k] = off;
      len[k] = n;
      off += n;
    }
    return { arena, start, len };
  }
}

/** Where answers are written: reused once given back (releaseAnswer), as the batch endpoint
 * does when uWS has taken the bytes (res.end copies what the socket does not take at once). */
const answerMemory = new BytePool(4);

/** Gives back the memory of an answer of AnswerWriter.write (CompiledConfig.batchJson) once it
 * has been sent: the bytes may be overwritten by the next answer. Optional: an answer never
 * given back is collected as usual. */
export function releaseAnswer(json: Uint8Array): void {
  answerMemory.release(json);
}

const NO_BYTES = new Uint8Array(0);

/** Interned answers held past this many bytes are dropped at the next batch. */
const INTERNED_BYTES = 8 << 20;

export class AnswerWriter {
  private readonly arena: Uint8Array; // the fragments' UTF-8 bytes
  private readonly start: Int32Array;
  private readonly len: Int32Array;
  // fragment ids; a table indexed by "index + 1" holds the null fragment at 0
  private readonly head: Int32Array; // per code: {"action":..,"reason":..,"srcZone":
  private readonly srcZone: Int32Array; // per zone 0..Z: "name" or null
  private readonly dstZone: Int32Array; // ,"dstZone":"name"
  private readonly route: Int32Array; // ,"egressInterface":"eth0","route":{...}
  private readonly nat: Int32Array; // ,"nat":{...}
  private readonly masqHead: Int32Array; // ,"nat":{"id":..,"type":..,"translatedIP":
  private readonly masqTail: Int32Array; // ,"translatedPort":".."}
  private readonly ifAddr: Int32Array; // "address" of each masquerade slot (link and family: image.ts)
  private readonly policy: Int32Array; // ,"policy":{...}}
  // whole answers, interned: slot s's bytes are the view wholeOf[s] into `whole` (bytes once
  // written there are never changed while a view of them is used: a slot built again is
  // written after them, and a grown store is a new buffer, the views keep the old one)
  private readonly slots: AnswerSlots;
  private readonly wholeOf: Uint8Array[];
  private readonly wholeLen: Int32Array; // wholeOf[s].length: the sizes are summed without touching the views
  private whole = new Uint8Array(1 << 16);
  private wholeUsed = 0;
  // per answer of the batch being written: its bytes (a slot's bytes can change within a
  // batch, when two answers of one policy differ in zones, route or NAT)
  private answers: Uint8Array[] = [];
  private readonly ids = new Int32Array(8); // intern()'s fragment ids

  constructor(meta: ImageMeta, routes: readonly RouteAnswer[], nat: readonly NatAnswer[], polId: Int32Array, polFlags: Int32Array) {
    const f = new Fragments();
    const codes = CODES;
    this.head = new Int32Array(codes.length);
    for (const [code, action, reason] of codes) this.head[code] = f.add(`{"action":${j(action)},"reason":${j(reason)},"srcZone":`);
    const zones = [null, ...meta.zones];
    this.srcZone = Int32Array.from(zones, (z) => f.add(j(z)));
    this.dstZone = Int32Array.from(zones, (z) => f.add(`,"dstZone":${j(z)}`));
    this.route = Int32Array.from([-1, ...routes.keys()], (r) =>
      f.add(r < 0 ? ',"egressInterface":null,"route":null' : `,"egressInterface":${j(meta.ifaces[meta.routes[r].egress].name)},"route":${j(routes[r])}`),
    );
    this.nat = Int32Array.from([-1, ...nat.keys()], (n) => f.add(`,"nat":${n < 0 ? 'null' : j(nat[n])}`));
    this.masqHead = Int32Array.from(nat, (a) => f.add(`,"nat":{"id":${j(a.id)},"type":${j(a.type)},"translatedIP":`));
    this.masqTail = Int32Array.from(nat, (a) => f.add(`,"translatedPort":${j(a.translatedPort)}}`));
    this.ifAddr = Int32Array.from({ length: meta.ifaces.length * 2 }, (_, slot) => f.add(j(masqueradeAddress(meta.ifaces, slot))));
    this.policy = new Int32Array(polId.length + 1);
    this.policy[0] = f.add(',"policy":null}');
    for (let p = 0; p < polId.length; p++) {
      const action = (polFlags[p] & 1) !== 0 ? 'allow' : 'deny';
      this.policy[p + 1] = f.add(`,"policy":${j({ id: polId[p], action, log: (polFlags[p] & 2) !== 0 })}}`);
    }
    const { arena, start, len } = f.seal();
    this.arena = arena;
    this.start = start;
    this.len = len;
    this.slots = new AnswerSlots(polId.length);
    this.wholeOf = new Array<Uint8Array>(this.slots.size).fill(NO_BYTES);
    this.wholeLen = new Int32Array(this.slots.size);
  }

  /** The fragment ids of answer k, in order, into `ids`; returns how many (6 or 8). */
  private fragments(a: BatchAnswers, k: number, ids: Int32Array): number {
    ids[0] = this.head[a.code[k]];
    ids[1] = this.srcZone[a.srcZone[k]];
    ids[2] = this.dstZone[a.dstZone[k]];
    ids[3] = this.route[a.route[k] + 1];
    const natIf = a.natIf[k];
    if (natIf >= 0) {
      const n = a.nat[k];
      ids[4] = this.masqHead[n];
      ids[5] = this.ifAddr[natIf];
      ids[6] = this.masqTail[n];
      ids[7] = this.policy[a.policy[k] + 1];
      return 8;
    }
    ids[4] = this.nat[a.nat[k] + 1];
    ids[5] = this.policy[a.policy[k] + 1];
    return 6;
  }

  /** {"version":V,"results":[answer 0, ..., answer n-1]} as UTF-8 bytes, in pooled memory
   * (give it back with releaseAnswer once sent). */
  write(version: number, a: BatchAnswers, n: number): Buffer {
    const head = Buffer.from(`{"version":${j(version)},"results":[`, 'utf8');
    if (this.wholeUsed > INTERNED_BYTES) {
      this.slots.clear();
      this.wholeOf.fill(NO_BYTES); // the store is written again from its start
      this.wholeUsed = 0;
    }
    if (this.answers.length < n) this.answers = new Array<Uint8Array>(n).fill(NO_BYTES);
    const answers = this.answers, wholeOf = this.wholeOf, wholeLen = this.wholeLen;
    // first pass: each answer's interned bytes (built on a miss), and the exact size, so the
    // body is one buffer and never copied again
    let size = head.length + 2 + (n > 0 ? n - 1 : 0);
    for (let k = 0; k < n; k++) {
      const s = this.slots.slot(a, k);
      if (!this.slots.holds(s, a, k)) this.intern(s, a, k);
      answers[k] = wholeOf[s];
      size += wholeLen[s];
    }
    const memory = answerMemory.take(size);
    const out = new Uint8Array(memory, 0, size);
    out.set(head, 0);
    let at = head.length;
    for (let k = 0; k < n; k++) {
      if (k > 0) out[at++] = 0x2c; // ','
      // one native copy from a view made when the answer was interned: about 25 ns for 200
      // bytes, against 90 ns copied 4 bytes at a time through DataViews (and a view made
      // per answer would cost more than either)
      out.set(answers[k], at);
      at += answers[k].length;
    }
    out[at++] = 0x5d; // ']'
    out[at++] = 0x7d; // '}'
    if (at !== size) throw new Error(`batch answer size ${at} != ${size}`);
    return Buffer.from(memory, 0, size);
  }

  /** Assembles answer k's bytes from its fragments into the interned answers, as slot s's. The
   * store only grows during a batch: earlier answers of the batch may still copy old bytes. */
  private intern(s: number, a: BatchAnswers, k: number): void {
    const ids = this.ids;
    const c = this.fragments(a, k, ids);
    let l = 0;
    for (let f = 0; f < c; f++) l += this.len[ids[f]];
    if (this.wholeUsed + l > this.whole.length) {
      const grown = new Uint8Array(Math.max(this.whole.length * 2, this.wholeUsed + l));
      grown.set(this.whole.subarray(0, this.wholeUsed));
      this.whole = grown;
    }
    const begin = this.wholeUsed;
    let at = begin;
    for (let f = 0; f < c; f++) {
      const from = this.start[ids[f]];
      this.whole.set(this.arena.subarray(from, from + this.len[ids[f]]), at);
      at += this.len[ids[f]];
    }
    this.wholeUsed = at;
    this.wholeOf[s] = this.whole.subarray(begin, at);
    this.wholeLen[s] = at - begin;
    this.slots.keep(s, a, k);
  }
}
