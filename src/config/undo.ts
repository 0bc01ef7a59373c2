// Applying a change so that it can be taken back. Changes never mutate the objects of a
// document: they replace top-level fields (rule tables, counters) and set or delete entries
// of the named maps. So an undo is the old top-level references plus the old map entries
// that were overwritten, and costs nothing like the copy of a whole candidate. Used where a
// change applied to a cached candidate may be refused by the store afterwards (another
// instance appended first).
import type { ConfigDoc } from './types';
import { NAMED_COLLECTIONS } from './document';

type AnyMap = Map<string, unknown>;

const MAPS = NAMED_COLLECTIONS;

/** Runs `fn` on `doc` and answers its result with a function that restores `doc` as it was. */
export function withUndo<R>(doc: ConfigDoc, fn: () => R): { result: R; undo: () => void } {
  const fields = { ...doc };
  const touched: Array<[AnyMap, string, boolean, unknown]> = [];
  const patched: AnyMap[] = [];
  for (const key of MAPS) {
    const map = doc[key] as AnyMap;
    const { set, delete: del } = Map.prototype;
    // own properties shadow the prototype's methods for the duration of fn only
    Object.defineProperty(map, 'set', { configurable: true, value(k: string, v: unknown) { touched.push([map, k, map.has(k), map.get(k)]); return set.call(map, k, v); } });
    Object.defineProperty(map, 'delete', { configurable: true, value(k: string) { touched.push([map, k, map.has(k), map.get(k)]); return del.call(map, k); } });
    patched.push(map);
  }
  let result: R;
  try {
    result = fn();
  } finally {
    for (const map of patched) {
      delete (map as Partial<AnyMap>).set;
      delete (map as Partial<AnyMap>).delete;
    }
  }
  return {
    result,
    undo: () => {
      for (let i = touched.length - 1; i >= 0; i--) {
        const [map, k, had, old] = touched[i];
        if (had) map.set(k, old);
        else map.delete(k);
      }
      Object.assign(doc, fields);
    },
  };
}
