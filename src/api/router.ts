// Path routing: exact segments and ":param" segments, decided once at start-up.
// A path that matches some route but not its method is a 405 with Allow; no match is a 404.
import type { RouteDef } from './http';

interface Compiled {
  def: RouteDef;
  segments: string[]; // ":name" marks a parameter
  literals: number; // segments that are not parameters: a literal beats a parameter
}

export const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null));

export type Match =
  | { kind: 'route'; def: RouteDef; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

export class Router {
  private readonly bySegmentCount = new Map<number, Compiled[]>();
  /** routes without parameters, by exact path and method: one lookup for most requests */
  private readonly exact = new Map<string, Map<string, RouteDef>>();

  add(def: RouteDef): void {
    const segments = def.pattern.split('/').filter(Boolean);
    const list = this.bySegmentCount.get(segments.length) ?? [];
    list.push({ def, segments, literals: segments.filter((s) => !s.startsWith(':')).length });
    this.bySegmentCount.set(segments.length, list);
    if (!def.pattern.includes(':')) {
      const byMethod = this.exact.get(def.pattern) ?? new Map<string, RouteDef>();
      byMethod.set(def.method, def);
      this.exact.set(def.pattern, byMethod);
    }
  }

  /** The route of a path without parameters (most requests): one lookup, nothing allocated. */
  exactRoute(method: string, path: string): RouteDef | undefined {
    return this.exact.get(path)?.get(method);
  }

  match(method: string, path: string): Match {
    const hit = this.exactRoute(method, path);
    if (hit) return { kind: 'route', def: hit, params: NO_PARAMS };
    return this.search(method, path);
  }

  /** Every route of the path's length, parameters included: the best match, or why none. */
  private search(method: string, path: string): Match {
    const parts = segmentsOf(path);
    const candidates = this.bySegmentCount.get(parts.length);
    if (!candidates) return { kind: 'not-found' };
    const allow: string[] = [];
    let best: { def: RouteDef; params: Record<string, string>; score: number } | null = null;
    for (const c of candidates) {
      const params = matchSegments(c.segments, parts);
      if (!params) continue;
      // a literal segment beats a parameter at the same place (/api/config/versions vs /:x)
      const score = c.literals;
      if (c.def.method === method || (method === 'HEAD' && c.def.method === 'GET')) {
        if (!best || score > best.score) best = { def: c.def, params, score };
      } else if (!allow.includes(c.def.method)) {
        allow.push(c.def.method);
      }
    }
    if (best) return { kind: 'route', def: best.def, params: best.params };
    if (allow.length) return { kind: 'method-not-allowed', allow };
    return { kind: 'not-found' };
  }
}

/**
 * The segments of a request path. One trailing slash is ignored; an empty segment inside
 * ("/api/nat//move") is kept, an empty parameter the handler refuses (400 bad id, 404 no such
 * name), rather than collapsed into another route's path.
 */
function segmentsOf(path: string): string[] {
  const end = path.length > 1 && path.endsWith('/') ? path.length - 1 : path.length;
  return path.slice(1, end).split('/');
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  const params: Record<string, string> = Object.create(null);
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.startsWith(':')) {
      let value: string;
      try {
        value = decodeURIComponent(parts[i]);
      } catch {
        return null;
      }
      params[p.slice(1)] = value;
    } else if (p !== parts[i]) {
      return null;
    }
  }
  return params;
}
