// Eval at an instant (issue 40 item 4): the compiled form of a document with the rules that
// are off at that instant (schedule or expiry) disabled. A compile costs, so the last few
// are kept by document and by which rules are off: the state changes at schedule edges only.
import type { ConfigDoc } from '../config/types';
import { gateAt, gatedDoc, type Gate } from '../config/schedule-gate';
import { CompiledConfig } from './compiled';

const KEEP = 4;

export class TimedCompiles {
  private memo: Array<{ doc: ConfigDoc; key: string; compiled: CompiledConfig }> = [];

  /** What answers for `doc` at `t`: `base` (doc compiled as it is) when no rule is off then. */
  at(doc: ConfigDoc, base: CompiledConfig, t: number): { compiled: CompiledConfig; gate: Gate } {
    const gate = gateAt(doc, t);
    if (!gate.policies.size && !gate.local.size) return { compiled: base, gate };
    let hit = this.memo.find((m) => m.doc === doc && m.key === gate.key);
    if (!hit) {
      hit = { doc, key: gate.key, compiled: CompiledConfig.compile(gatedDoc(doc, gate)) };
      this.memo = [hit, ...this.memo.slice(0, KEEP - 1)];
    }
    return { compiled: hit.compiled, gate };
  }
}
