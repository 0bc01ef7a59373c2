// The compiled matchers of one configuration, rebuilt (as views, no copy) from a
// CompiledImage: eval.md's pipeline with every step a typed-array lookup. The answer objects
// are the only allocation of an evaluation.
import { FwError } from '../errors';
import { parseIp, type Family } from '../config/net';
import type { ConfigDoc } from '../config/types';
import { CLASSIFIER_KEYS, FamilyClassifier, type ClassifierData } from './classifier';
import { compileImage, type CompileOptions } from './compile';
import { arrayOf, type CompiledImage, type ImageMeta } from './image';
import { lpm4, lpm6, type LpmData } from './lpm';
import { evalBatch } from './packet';
import { packetKey } from './sets';
import type { EvalResult, Evaluator, NatAnswer, Packet, RouteAnswer } from './types';
import type { Analysis } from './analysis';

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
  route: LpmData;
  znet: LpmData;
  conn: LpmData;
}

export class CompiledConfig implements Evaluator {
  readonly meta: ImageMeta;
  private readonly fam: Record<Family, PerFamily>;
  private readonly zoneIdx: Map<string, number>;
  private readonly ifIdx: Map<string, number>;
  private readonly polId: Int32Array;
  private readonly polFlags: Int32Array;
  private readonly routeAnswers: RouteAnswer[];
  private readonly natAnswers: NatAnswer[];
  private readonly natDst: Array<Int32Array | null>; // dnat: the new destination's words
  private readonly w = new Int32Array(12); // src words 0..3, dst 4..7, new dst 8..11

  private constructor(readonly image: CompiledImage, readonly analysis: Analysis | null) {
    this.meta = image.meta;
    const per = (f: Family): PerFamily => ({
      pol: new FamilyClassifier(classifierData(image, `pol${f}`), f),
      nat: new FamilyClassifier(classifierData(image, `nat${f}`), f),
      route: lpmData(image, `route${f}`),
      znet: lpmData(image, `znet${f}`),
      conn: lpmData(image, `conn${f}`),
    });
    this.fam = { 4: per(4), 6: per(6) };
    this.zoneIdx = new Map(this.meta.zones.map((z, i) => [z, i + 1]));
    this.ifIdx = new Map(this.meta.ifaces.map((m, i) => [m.name, i]));
    this.polId = arrayOf(image, 'pol.id');
    this.polFlags = arrayOf(image, 'pol.flags');
    this.routeAnswers = this.meta.routes.map((r) => ({ id: r.id, destination: r.destination }));
    this.natAnswers = this.meta.nat.map((n) => ({ id: n.id, type: n.type, translatedIP: n.translatedIp, translatedPort: n.translatedPort }));
    this.natDst = this.meta.nat.map((n) => {
      if (n.type === 'snat' || n.translatedIp === '') return null;
      const ip = parseIp(n.translatedIp);
      if (!ip) return null;
      const words = new Int32Array(4);
      loadWords(ip.bytes, words, 0);
      return words;
    });
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

  eval(p: Packet): EvalResult {
    const inIf = p.inInterface === null ? -1 : this.ifIdx.get(p.inInterface) ?? -2;
    if (inIf === -2) throw new FwError('ERR_NET_2003', `in-interface: unknown interface or VLAN "${p.inInterface}"`);
    const szPin = p.srcZone === null ? 0 : this.zoneIdx.get(p.srcZone) ?? -1;
    if (szPin < 0) throw new FwError('ERR_NET_2003', `src-zone: unknown zone "${p.srcZone}"`);
    const dzPin = p.dstZone === null ? 0 : this.zoneIdx.get(p.dstZone) ?? -1;
    if (dzPin < 0) throw new FwError('ERR_NET_2003', `dst-zone: unknown zone "${p.dstZone}"`);

    const family = p.family;
    const F = this.fam[family];
    const w = this.w;
    loadWords(p.src, w, 0);
    loadWords(p.dst, w, 4);
    const ifaces = this.meta.ifaces;

    // 1. source zone
    let sz = szPin;
    if (sz === 0 && inIf >= 0) sz = ifaces[inIf].zone;
    if (sz === 0) {
      const z = this.lookup(F.znet, family, 0);
      if (z > 0) sz = z;
      else {
        const i = this.lookup(F.conn, family, 0);
        if (i >= 0) sz = ifaces[i].zone;
      }
    }
    // 2. route and destination zone
    const route1 = this.lookup(F.route, family, 4);
    const egress1 = route1 >= 0 ? this.meta.routes[route1].egress : -1;
    const dz1 = dzPin > 0 ? dzPin : this.destZone(F, family, egress1, 4);
    // 3. NAT, first match whose out-interface and family conditions hold
    const key = packetKey(p.protocol, p.dstPort);
    const nq = F.nat.q;
    nq.set(w.subarray(0, 8));
    nq[8] = key;
    let n = F.nat.first(sz, dz1, 0);
    while (n >= 0) {
      const m = this.meta.nat[n];
      if ((m.outIf < 0 || m.outIf === egress1) && (!m.masquerade || (egress1 >= 0 && ifaces[egress1].family === family))) break;
      n = F.nat.first(sz, dz1, n + 1);
    }
    // 4. dnat: route and zone of the new destination
    let route = route1;
    let dz = dz1;
    const nd = n >= 0 ? this.natDst[n] : null;
    if (nd !== null) {
      w.set(nd, 8);
      route = this.lookup(F.route, family, 8);
      dz = dzPin > 0 ? dzPin : this.destZone(F, family, route >= 0 ? this.meta.routes[route].egress : -1, 8);
    }
    const srcZone = sz > 0 ? this.meta.zones[sz - 1] : null;
    const dstZone = dz > 0 ? this.meta.zones[dz - 1] : null;
    const egressInterface = route >= 0 ? ifaces[this.meta.routes[route].egress].name : null;
    const routeAnswer = route >= 0 ? { ...this.routeAnswers[route] } : null;
    const dnat = nd !== null ? { ...this.natAnswers[n] } : null;
    // 5. no route
    if (route < 0 && dzPin === 0) {
      return { action: 'deny', reason: 'no-route', srcZone, dstZone, egressInterface, route: routeAnswer, nat: dnat, policy: null };
    }
    // 6. policy on the original addresses and service, post-NAT zone
    const pq = F.pol.q;
    pq.set(w.subarray(0, 8));
    pq[8] = key;
    const i = F.pol.first(sz, dz, 0);
    if (i < 0) return { action: 'deny', reason: 'default-deny', srcZone, dstZone, egressInterface, route: routeAnswer, nat: dnat, policy: null };
    const flags = this.polFlags[i];
    const action = (flags & 1) !== 0 ? 'allow' : 'deny';
    // 7. snat only for an allowed packet; masquerade takes the egress address
    let nat = dnat;
    if (n >= 0 && nd === null && action === 'allow') {
      nat = { ...this.natAnswers[n] };
      if (this.meta.nat[n].masquerade) nat.translatedIP = ifaces[egress1].addr;
    }
    return {
      action,
      reason: 'policy',
      srcZone,
      dstZone,
      egressInterface,
      route: routeAnswer,
      nat,
      policy: { id: this.polId[i], action, log: (flags & 2) !== 0 },
    };
  }

  private lookup(t: LpmData, family: Family, at: number): number {
    return family === 4 ? lpm4(t, this.w[at]) : lpm6(t, this.w, at);
  }

  private destZone(F: PerFamily, family: Family, egress: number, at: number): number {
    if (egress >= 0 && this.meta.ifaces[egress].zone > 0) return this.meta.ifaces[egress].zone;
    const z = this.lookup(F.znet, family, at);
    return z > 0 ? z : 0;
  }
}

export function loadWords(bytes: Uint8Array, out: Int32Array, at: number): void {
  for (let i = 0; i < bytes.length; i += 4) out[at + (i >> 2)] = (bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3];
  for (let i = bytes.length >> 2; i < 4; i++) out[at + i] = 0;
}
