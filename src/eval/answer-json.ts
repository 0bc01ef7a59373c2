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
import type { ImageMeta } from './image';
import { ALLOW_POLICY, DENY_DEFAULT, DENY_NO_ROUTE, DENY_POLICY, type BatchAnswers } from './batch';
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
  private readonly ifAddr: Int32Array; // "address" of each interface
  private readonly policy: Int32Array; // ,"policy":{...}}
  // whole answers, interned: slot s's bytes are whole[wStart[s], + wLen[s]), 3 spare bytes
  private readonly slots: AnswerSlots;
  private readonly wStart: Int32Array;
  private readonly wLen: Int32Array;
  private whole = new Uint8Array(1 << 16);
  private wholeView = new DataView(this.whole.buffer);
  private wholeUsed = 0;
  // per answer of the batch being written: where its bytes are (a slot's bytes can change
  // within a batch, when two answers of one policy differ in zones, route or NAT)
  private answerStart = new Int32Array(0);
  private answerLen = new Int32Array(0);
  private readonly ids = new Int32Array(8); // intern()'s fragment ids

  constructor(meta: ImageMeta, routes: readonly RouteAnswer[], nat: readonly NatAnswer[], polId: Int32Array, polFlags: Int32Array) {
    const f = new Fragments();
    const codes = [
      [ALLOW_POLICY, 'allow', 'policy'],
      [DENY_POLICY, 'deny', 'policy'],
      [DENY_DEFAULT, 'deny', 'default-deny'],
      [DENY_NO_ROUTE, 'deny', 'no-route'],
    ] as const;
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
    this.ifAddr = Int32Array.from(meta.ifaces, (m) => f.add(j(m.addr)));
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
    this.wStart = new Int32Array(this.slots.size);
    this.wLen = new Int32Array(this.slots.size);
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

  /** {"version":V,"results":[answer 0, ..., answer n-1]} as UTF-8 bytes. */
  write(version: number, a: BatchAnswers, n: number): Buffer {
    const head = Buffer.from(`{"version":${j(version)},"results":[`, 'utf8');
    if (this.wholeUsed > INTERNED_BYTES) {
      this.slots.clear();
      this.wholeUsed = 0;
    }
    if (this.answerStart.length < n) {
      this.answerStart = new Int32Array(n);
      this.answerLen = new Int32Array(n);
    }
    const aStart = this.answerStart, aLen = this.answerLen, wStart = this.wStart, wLen = this.wLen;
    // first pass: each answer's interned bytes (built on a miss), and the exact size, so the
    // body is one allocation and never copied again
    let size = head.length + 2 + (n > 0 ? n - 1 : 0);
    for (let k = 0; k < n; k++) {
      const s = this.slots.slot(a, k);
      if (!this.slots.holds(s, a, k)) this.intern(s, a, k);
      aStart[k] = wStart[s];
      aLen[k] = wLen[s];
      size += wLen[s];
    }
    // 3 spare bytes: answers are copied 4 bytes at a time and the last copy may run past the
    // end (each answer's overrun is overwritten by the next one)
    const memory = answerMemory.take(size + 3);
    const out = Buffer.from(memory, 0, size + 3);
    head.copy(out, 0);
    let at = head.length;
    const src = this.wholeView;
    const dst = new DataView(memory, 0, size + 3);
    for (let k = 0; k < n; k++) {
      if (k > 0) out[at++] = 0x2c; // ','
      // 4 bytes at a time through DataViews (unaligned int32 loads and stores that the
      // optimizer inlines; little-endian, the machine's order: no byte swaps): an answer is
      // about 200 bytes, where set() or copy() would cost a view object and a native call
      const l = aLen[k];
      for (let i = aStart[k], d = at, e = at + l; d < e; i += 4, d += 4) dst.setInt32(d, src.getInt32(i, true), true);
      at += l;
    }
    out[at++] = 0x5d; // ']'
    out[at++] = 0x7d; // '}'
    if (at !== size) throw new Error(`batch answer size ${at} != ${size}`);
    return out.subarray(0, size);
  }

  /** Assembles answer k's bytes from its fragments into the interned answers, as slot s's. The
   * store only grows during a batch: earlier answers of the batch may still copy old bytes. */
  private intern(s: number, a: BatchAnswers, k: number): void {
    const ids = this.ids;
    const c = this.fragments(a, k, ids);
    let l = 0;
    for (let f = 0; f < c; f++) l += this.len[ids[f]];
    if (this.wholeUsed + l + 3 > this.whole.length) {
      const grown = new Uint8Array(Math.max(this.whole.length * 2, this.wholeUsed + l + 3));
      grown.set(this.whole.subarray(0, this.wholeUsed));
      this.whole = grown;
      this.wholeView = new DataView(grown.buffer);
    }
    let at = this.wholeUsed;
    this.wStart[s] = at;
    this.wLen[s] = l;
    for (let f = 0; f < c; f++) {
      const from = this.start[ids[f]];
      this.whole.set(this.arena.subarray(from, from + this.len[ids[f]]), at);
      at += this.len[ids[f]];
    }
    this.wholeUsed = at;
    this.slots.keep(s, a, k);
  }
}
