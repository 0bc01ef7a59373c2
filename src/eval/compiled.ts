// The compiled matchers of one configuration, rebuilt (as views, no copy) from a
// CompiledImage: eval.md's pipeline with every step a typed-array lookup. One implementation
// of the pipeline (run) answers into typed arrays (BatchAnswers): a batch allocates nothing
// per packet and is serialized from precomputed JSON fragments (batchJson); eval() runs the
// same code on a Packet's words into a one-slot answer and builds the answer objects.
import { FwError, isFwError } from '../errors';
import { parseIp, type Family } from '../config/net';
import type { ConfigDoc } from '../config/types';
import { CLASSIFIER_KEYS, FamilyClassifier, type ClassifierData } from './classifier';
import { compileImage, type CompileOptions } from './compile';
import { arrayOf, masqueradeSlot, type CompiledImage, type ImageMeta } from './image';
import { lpm4, lpm6, lpmUnion, type LpmData } from './lpm';
import { AnswerWriter } from './answer-json';
import { AnswerObjects } from './answer-objects';
import { ALLOW_POLICY, BatchAnswers, DENY_DEFAULT, DENY_NO_ROUTE, DENY_POLICY, PacketBatch, scratchAnswers } from './batch';
import { castCode4, castCode6 } from './cast';
import { isOwn, managementAccepts } from './local';
import { ALLOW_LOCAL, ALLOW_LOCAL_POLICY, DENY_BROADCAST, DENY_LOCAL, DENY_LOCAL_POLICY } from './batch';
import { evalBatch } from './packet';
import { packetKey } from './sets';
import type { EvalResult, Evaluator, NatAnswer, Packet, RouteAnswer } from './types';
import type { Analysis } from './analysis-types';

function classifierData(image: CompiledImage, prefix: string): ClassifierData {
  const d = {} as Record<string, Int32Array>;
  for (const k of CLASSIFIER_KEYS) d[k] = arrayOf(image, `${prefix}.${k}`);
  return d as unknown as ClassifierData;
}

function lpmData(image: CompiledImage, prefix: string): LpmData {
  return { starts: arrayOf(image, `${prefix}.starts`), answers: arrayOf(image, `${prefix}.answers`) };
}

interface PerFamily {
  pol: FamilyClassifier;
  nat: FamilyClassifier;
  /** issue 41: the local policies (packets to the firewall itself) */
  loc: FamilyClassifier;
  /** the firewall's own addresses (local.ts) */
  own: Int32Array;
  /** an address's zone as a source (1.): its zone network's, else its connected subnet's
   * interface's; 0: none */
  srcZone: LpmData;
  /** an address as a destination (2., 4.): an index into dstRoute and dstZone */
  dst: LpmData;
  /** the route (-1: none) and the zone as a destination (its route's egress interface's,
   * else its zone network's; 0: none) of each distinct answer of `dst` */
  dstRoute: Int32Array;
  dstZone: Int32Array;
}

export class CompiledConfig implements Evaluator {
  readonly meta: ImageMeta;
  private readonly fam: Record<Family, PerFamily>;
  private readonly zoneIdx: Map<string, number>;
  private readonly ifIdx: Map<string, number>;
  // the policies' ids and flags, then the local policies' (issue 41): an answer's policy index
  // past polCount is local policy (index - polCount)
  private readonly polId: Int32Array;
  private readonly polFlags: Int32Array;
  private readonly polCount: number;
  private readonly bcast4: Int32Array; // the connected subnets' broadcast addresses (cast.ts)
  private readonly routeAnswers: RouteAnswer[];
  private readonly natAnswers: NatAnswer[];
  private readonly natDst: Array<Int32Array | null>; // dnat: the new destination's words
  private readonly w = new Int32Array(12); // src words 0..3, dst 4..7, new dst 8..11
  private readonly f4: PerFamily;
  private readonly f6: PerFamily;
  private readonly oneAnswer = new BatchAnswers(1);
  private writer: AnswerWriter | undefined; // built at the first batchJson
  private objects: AnswerObjects | undefined; // built at the first eval

  private constructor(readonly image: CompiledImage, readonly analysis: Analysis | null) {
    this.meta = image.meta;
    this.fam = { 4: this.perFamily(4), 6: this.perFamily(6) };
    this.f4 = this.fam[4];
    this.f6 = this.fam[6];
    this.zoneIdx = new Map(this.meta.zones.map((z, i) => [z, i + 1]));
    this.ifIdx = new Map(this.meta.ifaces.map((m, i) => [m.name, i]));
    const polId = arrayOf(image, 'pol.id'), locId = arrayOf(image, 'loc.id');
    this.polCount = polId.length;
    this.polId = locId.length === 0 ? polId : Int32Array.from([...polId, ...locId]);
    this.polFlags = locId.length === 0 ? arrayOf(image, 'pol.flags') : Int32Array.from([...arrayOf(image, 'pol.flags'), ...arrayOf(image, 'loc.flags')]);
    this.bcast4 = arrayOf(image, 'bcast4');
    this.routeAnswers = this.meta.routes.map((r) => ({ id: r.id, destination: r.destination }));
    this.natAnswers = this.meta.nat.map((n) => ({
      id: n.id, type: n.type, translatedIP: n.translatedIp, translatedPort: n.translatedPort, ...(n.translates ? { translates: n.translates } : {}),
    }));
    this.natDst = this.meta.nat.map((n) => {
      // an snat, or the outbound half of a static rule, rewrites the source
      if (n.type === 'snat' || n.translates === 'source' || n.translatedIp === '') return null;
      const ip = parseIp(n.translatedIp);
      if (!ip) return null;
      const words = new Int32Array(4);
      loadWords(ip.bytes, words, 0);
      return words;
    });
  }

  /** A family's matchers. The zone steps are functions of an address alone, so the longest-
   * prefix tables they read are merged (lpmUnion) into one lookup for a source and one for a
   * destination, with the interface zones folded in: O(routes + zone networks) here, two
   * lookups a packet instead of four, and no route or interface object read on the way. */
  private perFamily(f: Family): PerFamily {
    const ifaces = this.meta.ifaces;
    const routes = this.meta.routes;
    const znet = lpmData(this.image, `znet${f}`);
    const srcZone = lpmUnion(znet, lpmData(this.image, `conn${f}`), f, (z, c) => (z > 0 ? z : c >= 0 ? ifaces[c].zone : 0));
    // the distinct (route, zone) answers, numbered as met
    const pairs = new Map<string, number>();
    const dstRoute: number[] = [];
    const dstZone: number[] = [];
    const dst = lpmUnion(lpmData(this.image, `route${f}`), znet, f, (r, z) => {
      const egressZone = r >= 0 ? ifaces[routes[r].egress].zone : 0;
      const zone = egressZone > 0 ? egressZone : z > 0 ? z : 0;
      const k = `${r} ${zone}`;
      let id = pairs.get(k);
      if (id === undefined) {
        pairs.set(k, (id = dstRoute.length));
        dstRoute.push(r);
        dstZone.push(zone);
      }
      return id;
    });
    return {
      pol: new FamilyClassifier(classifierData(this.image, `pol${f}`), f),
      nat: new FamilyClassifier(classifierData(this.image, `nat${f}`), f),
      loc: new FamilyClassifier(classifierData(this.image, `loc${f}`), f),
      own: arrayOf(this.image, `own${f}`),
      srcZone,
      dst,
      dstRoute: Int32Array.from(dstRoute),
      dstZone: Int32Array.from(dstZone),
    };
  }

  /** Wraps an image (e.g. from the compile worker); the buffer is used in place. */
  static fromImage(image: CompiledImage, analysis: Analysis | null = null): CompiledConfig {
    return new CompiledConfig(image, analysis);
  }

  /** Compiles on this thread (tests, benchmarks, and the worker itself). */
  static compile(doc: ConfigDoc, opts: CompileOptions = {}): CompiledConfig {
    return new CompiledConfig(compileImage(doc, opts), null);
  }

  /** The policy classifier of a family, for benchmarks and the analysis. */
  policyClassifier(family: Family): FamilyClassifier {
    return this.fam[family].pol;
  }

  /** Zone index used by the classifiers: 1..Z, 0 for none, -1 when unknown. */
  zoneIndex(name: string | null): number {
    return name === null ? 0 : this.zoneIdx.get(name) ?? -1;
  }

  evalBatch(packets: readonly Packet[]): EvalResult[] {
    return evalBatch(this, packets);
  }

  /** One packet: the batch pipeline straight from the Packet's words into a one-slot answer,
   * then the answer: frozen, and shared with earlier calls that got the same answer
   * (answer-objects.ts). */
  eval(p: Packet): EvalResult {
    this.loadAddresses(p);
    this.run(p.family, packetKey(p.protocol, p.dstPort), p.srcPort ?? 0, p.inInterface, p.srcZone, p.dstZone, this.oneAnswer, 0);
    this.objects ??= new AnswerObjects(this.meta, this.routeAnswers, this.natAnswers, this.polId, this.polFlags);
    return this.objects.answer(this.oneAnswer, 0);
  }

  /** The packet's source and destination address words into the lookup's scratch (w[0..3], w[4..7]). */
  private loadAddresses(p: Packet): void {
    const w = this.w;
    w[0] = p.s0;
    w[4] = p.d0;
    if (p.family === 6) {
      w[1] = p.s1;
      w[2] = p.s2;
      w[3] = p.s3;
      w[5] = p.d1;
      w[6] = p.d2;
      w[7] = p.d3;
    }
  }

  /** The answer eval() gives for slot j of answers `a` (filled by evalBatchInto): the same shared objects. */
  answerAt(a: BatchAnswers, j: number): EvalResult {
    this.objects ??= new AnswerObjects(this.meta, this.routeAnswers, this.natAnswers, this.polId, this.polFlags);
    return this.objects.answer(a, j);
  }

  /**
   * The zones eval() answers for `p` without the policy step: the source zone (1.) and the
   * destination zone after a dnat (2.-4.), as indexes (0: none; zoneName). The session table
   * asks this of every live connection a ?zone= filter meets (100,000 of them), where the
   * policy lookup and the answer object were most of eval's cost. Same steps as run() for a
   * packet with no interface and no zone named (test/unit/sessions-narrow.test.ts holds them
   * equal).
   */
  zonesOf(p: Packet): [number, number] {
    const family = p.family;
    const F = family === 4 ? this.f4 : this.f6;
    const w = this.w;
    this.loadAddresses(p);
    const ifaces = this.meta.ifaces;
    const sz = this.lookup(F.srcZone, family, 0);
    if ((family === 4 ? castCode4(w[4], this.bcast4) : castCode6(w[4])) !== 0) return [sz, 0]; // as run()
    const d1 = this.lookup(F.dst, family, 4);
    const route1 = F.dstRoute[d1];
    let n = -1;
    if (!F.nat.empty) {
      const egress1 = route1 >= 0 ? this.meta.routes[route1].egress : -1;
      const nq = F.nat.q;
      copyWords(w, 0, nq, family);
      nq[8] = packetKey(p.protocol, p.dstPort);
      nq[9] = p.srcPort ?? 0;
      n = F.nat.first(sz, F.dstZone[d1], 0);
      while (n >= 0) {
        const m = this.meta.nat[n];
        if ((m.outIf < 0 || m.outIf === egress1) && (!m.masquerade || (egress1 >= 0 && (family === 4 ? ifaces[egress1].addr4 : ifaces[egress1].addr6) !== ''))) break;
        n = F.nat.first(sz, F.dstZone[d1], n + 1);
      }
    }
    const nd = n >= 0 ? this.natDst[n] : null;
    if (nd !== null) for (let k = 0; k < 4; k++) w[8 + k] = nd[k];
    if (isOwn(family, w, nd !== null ? 8 : 4, F.own)) return [sz, 0]; // to the firewall itself, as run()
    if (nd === null) return [sz, F.dstZone[d1]];
    return [sz, F.dstZone[this.lookup(F.dst, family, 8)]];
  }

  /** A zone's name by its index (zonesOf, the classifiers); null for 0. */
  zoneName(index: number): string | null {
    return index > 0 ? this.meta.zones[index - 1] : null;
  }

  /**
   * Evaluates every packet of `b` into `out` (slot i for packet i), allocating nothing per
   * packet. Throws ERR_NET_2003 for the first packet naming an unknown interface or zone, its
   * details prefixed with `packets[i].` (as evalBatch does).
   */
  evalBatchInto(b: PacketBatch, out: BatchAnswers = new BatchAnswers(b.length)): BatchAnswers {
    if (out.capacity < b.length) throw new RangeError(`${out.capacity} answer slots for ${b.length} packets`);
    out.length = b.length;
    let i = 0;
    try {
      for (; i < b.length; i++) this.evalSlot(b, i, out, i);
    } catch (e) {
      if (isFwError(e)) throw new FwError(e.code, `packets[${i}].${e.details}`, e.message);
      throw e;
    }
    return out;
  }

  /**
   * The answer body of a batch, {"version": V, "results": [...]}, as UTF-8 bytes equal to
   * JSON.stringify of the answer objects eval() would build (JSON fragments precomputed once
   * per configuration, see answer-json.ts).
   */
  batchJson(version: number, a: BatchAnswers, n = a.length): Buffer {
    this.writer ??= new AnswerWriter(this.meta, this.routeAnswers, this.natAnswers, this.polId, this.polFlags);
    return this.writer.write(version, a, n);
  }

  /** What the batch endpoint answers: evalBatchInto (shared answer slots: evaluation and
   * serialization are one synchronous step) then batchJson. */
  evalBatchJson(version: number, b: PacketBatch): Buffer {
    return this.batchJson(version, this.evalBatchInto(b, scratchAnswers(b.length)));
  }

  /** Packet i of `b` through the pipeline (run), answer into slot j of `a`. */
  private evalSlot(b: PacketBatch, i: number, a: BatchAnswers, j: number): void {
    const family = b.family(i);
    copyWords(b.words, i * 8, this.w, family);
    const sp = b.srcPort[i];
    this.run(family, packetKey(b.protocol[i], b.dstPort[i]), sp < 0 ? 0 : sp, b.inInterface[i], b.srcZone[i], b.dstZone[i], a, j);
  }

  /**
   * eval.md's pipeline for one packet, its address words in w[0..7] (IPv4: w[0] and w[4]),
   * `sport` its source port (0 when not given: no service names port 0),
   * answer into slot j of `a`: every step a typed-array lookup, the only state the scratch
   * words `w`. Throws ERR_NET_2003 (unprefixed) for an unknown interface or zone name,
   * checked in that order.
   */
  private run(family: Family, key: number, sport: number, inName: string | null, szName: string | null, dzName: string | null, a: BatchAnswers, j: number): void {
    const inIf = inName === null ? -1 : this.ifIdx.get(inName) ?? -2;
    if (inIf === -2) throw new FwError('ERR_NET_2003', `in-interface: unknown interface or VLAN "${inName}"`);
    const szPin = szName === null ? 0 : this.zoneIdx.get(szName) ?? -1;
    if (szPin < 0) throw new FwError('ERR_NET_2003', `src-zone: unknown zone "${szName}"`);
    const dzPin = dzName === null ? 0 : this.zoneIdx.get(dzName) ?? -1;
    if (dzPin < 0) throw new FwError('ERR_NET_2003', `dst-zone: unknown zone "${dzName}"`);

    const F = family === 4 ? this.f4 : this.f6;
    const w = this.w;
    const ifaces = this.meta.ifaces;

    // 1. source zone
    let sz = szPin;
    if (sz === 0 && inIf >= 0) sz = ifaces[inIf].zone;
    if (sz === 0) sz = this.lookup(F.srcZone, family, 0);
    // 1b. broadcast and multicast are never forwarded (cast.ts): no route, NAT or policy
    const cast = family === 4 ? castCode4(w[4], this.bcast4) : castCode6(w[4]);
    if (cast !== 0) {
      a.code[j] = cast;
      a.srcZone[j] = sz;
      a.dstZone[j] = dzPin;
      a.route[j] = -1;
      a.nat[j] = -1;
      a.natIf[j] = -1;
      a.policy[j] = -1;
      // a broadcast reaches the firewall itself: a local policy or a shortcut may accept it
      if (cast === DENY_BROADCAST) this.local(F, family, key, sport, sz, inIf, a, j, true);
      return;
    }
    // 2. route and destination zone
    const d1 = this.lookup(F.dst, family, 4);
    const route1 = F.dstRoute[d1];
    const dz1 = dzPin > 0 ? dzPin : F.dstZone[d1];
    // 3. NAT, first match whose out-interface and family conditions hold
    let n = -1;
    let egress1 = -1;
    if (!F.nat.empty) {
      egress1 = route1 >= 0 ? this.meta.routes[route1].egress : -1;
      const nq = F.nat.q;
      copyWords(w, 0, nq, family);
      nq[8] = key;
      nq[9] = sport;
      n = F.nat.first(sz, dz1, 0);
      while (n >= 0) {
        const m = this.meta.nat[n];
        if ((m.outIf < 0 || m.outIf === egress1) && (!m.masquerade || (egress1 >= 0 && (family === 4 ? ifaces[egress1].addr4 : ifaces[egress1].addr6) !== ''))) break;
        n = F.nat.first(sz, dz1, n + 1);
      }
    }
    // 4. dnat: route and zone of the new destination
    let route = route1;
    let dz = dz1;
    const nd = n >= 0 ? this.natDst[n] : null;
    if (nd !== null) {
      for (let k = 0; k < 4; k++) w[8 + k] = nd[k];
      const d = this.lookup(F.dst, family, 8);
      route = F.dstRoute[d];
      dz = dzPin > 0 ? dzPin : F.dstZone[d];
    }
    a.srcZone[j] = sz;
    a.dstZone[j] = dz;
    a.route[j] = route;
    a.natIf[j] = -1;
    // the dnat rule is in every answer; an snat only in an allowed one (7.)
    a.nat[j] = nd !== null ? n : -1;
    a.policy[j] = -1;
    // 4b. to the firewall itself (issue 41): the local policies judge it, nothing is forwarded
    if (isOwn(family, w, nd !== null ? 8 : 4, F.own)) {
      a.dstZone[j] = 0;
      a.route[j] = -1;
      this.local(F, family, key, sport, sz, inIf, a, j, false);
      return;
    }
    // 5. no route
    if (route < 0 && dzPin === 0) {
      a.code[j] = DENY_NO_ROUTE;
      return;
    }
    // 6. policy on the original addresses and service, post-NAT zone
    const pq = F.pol.q;
    copyWords(w, 0, pq, family);
    pq[8] = key;
    pq[9] = sport;
    const p = F.pol.first(sz, dz, 0);
    if (p < 0) {
      a.code[j] = DENY_DEFAULT;
      return;
    }
    const allow = (this.polFlags[p] & 1) !== 0;
    a.code[j] = allow ? ALLOW_POLICY : DENY_POLICY;
    a.policy[j] = p;
    // 7. snat only for an allowed packet; masquerade takes the egress address
    if (n >= 0 && nd === null && allow) {
      a.nat[j] = n;
      if (this.meta.nat[n].masquerade) a.natIf[j] = masqueradeSlot(egress1, family);
    }
  }

  /**
   * A packet to the firewall itself (issue 41), its original addresses in w[0..7]: the first
   * local policy that matches, else the management shortcuts of the link it came in on (the
   * in-interface, else the egress of the route back to its source: what rpf holds it to).
   * For a broadcast (`cast`) nothing more than DENY_BROADCAST, already in the slot, when
   * neither accepts nor a local policy denies.
   */
  private local(F: PerFamily, family: Family, key: number, sport: number, sz: number, inIf: number, a: BatchAnswers, j: number, cast: boolean): void {
    if (!F.loc.empty) {
      const q = F.loc.q;
      copyWords(this.w, 0, q, family);
      q[8] = key;
      q[9] = sport;
      const p = F.loc.first(sz, 0, 0);
      if (p >= 0) {
        a.policy[j] = this.polCount + p;
        a.code[j] = (this.polFlags[this.polCount + p] & 1) !== 0 ? ALLOW_LOCAL_POLICY : DENY_LOCAL_POLICY;
        return;
      }
    }
    let ingress = inIf;
    if (ingress < 0) {
      const r = F.dstRoute[this.lookup(F.dst, family, 0)];
      ingress = r >= 0 ? this.meta.routes[r].egress : -1;
    }
    const accepted = ingress >= 0 && managementAccepts(this.meta.ifaces[ingress].mgmt, key);
    if (accepted) a.code[j] = ALLOW_LOCAL;
    else if (!cast) a.code[j] = DENY_LOCAL;
  }

  private lookup(t: LpmData, family: Family, at: number): number {
    return family === 4 ? lpm4(t, this.w[at]) : lpm6(t, this.w, at);
  }
}

/** The address words of a packet (at from: source 4 words, destination 4 words) into to[0..7]:
 * IPv4 reads only words 0 and 4, so only those are copied. Element by element, not
 * set(subarray()): no view object. */
function copyWords(from: Int32Array, at: number, to: Int32Array, family: Family): void {
  if (family === 4) {
    to[0] = from[at];
    to[4] = from[at + 4];
  } else {
    for (let k = 0; k < 8; k++) to[k] = from[at + k];
  }
}

export function loadWords(bytes: Uint8Array, out: Int32Array, at: number): void {
  if (bytes.length === 4) {
    // IPv4, most packets: one word, no loop
    out[at] = (bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3];
    out[at + 1] = out[at + 2] = out[at + 3] = 0;
    return;
  }
  for (let i = 0; i < bytes.length; i += 4) out[at + (i >> 2)] = (bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3];
  for (let i = bytes.length >> 2; i < 4; i++) out[at + i] = 0;
}
