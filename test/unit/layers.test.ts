// The module map of the shared spec (architecture.md, "Layout"): imports point down only and
// form no runtime cycle. Read from the compiled JavaScript, where TypeScript has erased the
// imports of types: a require() left there is a module that loads another at run time.
import fs from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(__dirname, '../../src');

/**
 * Each top-level folder (or file) of src/ and its layer: a module may load modules of its own
 * folder and of lower layers, never a peer's or a higher one's. The top-level helpers every
 * layer uses are layer 0; fwctl (src/cli) is a client of the HTTP API and loads nothing of
 * the daemon but those helpers.
 */
const LAYERS: Record<string, number> = {
  'errors.js': 0, 'byte-pool.js': 0, 'lru.js': 0, 'deadline.js': 0, 'host-names.js': 0, 'idle-gc.js': 0, 'malloc-env.js': 0, 'keyed-mac.js': 0,
  config: 1,
  eval: 2, store: 2, dataplane: 2,
  auth: 3, session: 3, events: 3, connections: 3, syslog: 3, dynamic: 3,
  // the cluster's node credential names roles (auth): it sits just above its peers
  cluster: 3.5,
  workers: 4,
  api: 5,
  'log-destination.js': 6, 'journal-format.js': 6, 'settings.js': 6, wiring: 7, 'app.js': 8, service: 8,
  'main.js': 9, 'worker-main.js': 9, 'adopt-records.js': 9,
  cli: 1,
};

function jsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? jsFiles(p) : p.endsWith('.js') ? [p] : [];
  });
}

function resolveLocal(from: string, spec: string): string {
  const base = path.resolve(path.dirname(from), spec);
  if (fs.existsSync(`${base}.js`)) return `${base}.js`;
  if (fs.existsSync(path.join(base, 'index.js'))) return path.join(base, 'index.js');
  return base;
}

/** Every module of src/ and the modules of src/ it loads at run time. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of jsFiles(SRC)) {
    const code = fs.readFileSync(file, 'utf8');
    const deps = [...code.matchAll(/require\("(\.{1,2}\/[^"]*)"\)/g)].map((m) => resolveLocal(file, m[1]));
    graph.set(file, deps.filter((d) => d.startsWith(SRC)));
  }
  return graph;
}

const unitOf = (file: string) => path.relative(SRC, file).split(path.sep)[0];

/** Strongly connected components of more than one module (Tarjan), or a module loading itself. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(path.relative(SRC, w));
    } while (w !== v);
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Imports of a peer layer or a higher one, as "from -> to". */
function upwardImports(graph: Map<string, string[]>): string[] {
  const upward: string[] = [];
  for (const [file, deps] of graph) {
    const from = unitOf(file);
    for (const dep of deps) {
      const to = unitOf(dep);
      if (to !== from && !(LAYERS[to] < LAYERS[from])) upward.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, dep)}`);
    }
  }
  return upward;
}

const graph = importGraph();

test('the compiled sources are there to read', () => {
  expect(graph.size).toBeGreaterThan(100);
});

test('every folder of src/ has a layer in the module map', () => {
  const unmapped = [...new Set([...graph.keys()].map(unitOf))].filter((u) => !(u in LAYERS));
  expect(unmapped).toEqual([]);
});

test('imports point down only: no module loads a peer layer or a higher one', () => {
  expect(upwardImports(graph)).toEqual([]);
});

test('no runtime import cycle in src/', () => {
  expect(cycles(graph)).toEqual([]);
});

test('the checks see what they look for', () => {
  // a cycle and an upward import made up here are found, so an empty answer above means something
  const a = path.join(SRC, 'config', 'a.js'), b = path.join(SRC, 'api', 'b.js');
  const made = new Map([[a, [b]], [b, [a]]]);
  expect(cycles(made)).toEqual([['api/b.js', 'config/a.js']]);
  expect(upwardImports(made)).toEqual(['config/a.js -> api/b.js']);
});
