// A running document as eval sees it with dynamic sets (issue 40): each set becomes an address
// of its current entries (none: it matches nothing), so the reference and compiled matchers
// need to know nothing of dynamic sets.
import type { ConfigDoc } from '../config/types';
import { workingCopy } from '../config/document';

export function overlayDoc(doc: ConfigDoc, contents: ReadonlyMap<string, readonly string[]>): ConfigDoc {
  const out = workingCopy(doc);
  out.dynamicSets = new Map();
  for (const [name, ips] of contents) out.addresses.set(name, { name, ips: [...ips] });
  return out;
}
