// npm start: the daemon from dist/, compiled first only when a source is newer than its
// output. The compile here is esbuild's transpile (about a second, no type check): the type
// checks and tsc's own output stay in `npm run build` and `npm test`. A fresh clone so
// answers within seconds of `npm ci` instead of after a full build (issue 29).
//
// Current means: every server source (src/**/*.ts, tsconfig.json, package.json) older than
// dist/src/main.js, every console source (console/src, index.html, build.mjs) older than
// dist/console/index.html; both outputs are written after their sources are read, by tsc or
// by this script alike. `--check` only says whether a compile is needed (exit 0: current, 1:
// not), for tests and scripts.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (...p) => path.join(root, ...p);

/** Every file under `dir` (recursively) whose name passes `keep`. */
function filesUnder(dir, keep = () => true) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && keep(e.name))
    .map((e) => path.join(e.parentPath ?? e.path, e.name));
}

const mtime = (file) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : -Infinity);
const newest = (files) => Math.max(-Infinity, ...files.map(mtime));

/** The parts of the build, each with its sources, the output written last and how to make it. */
const PARTS = [
  {
    name: 'daemon',
    sources: () => [...filesUnder(at('src'), (n) => n.endsWith('.ts')), at('tsconfig.json'), at('package.json')],
    output: at('dist', 'src', 'main.js'),
    build: transpileDaemon,
  },
  {
    name: 'console',
    sources: () => [...filesUnder(at('console', 'src')), at('console', 'index.html'), at('console', 'build.mjs')],
    output: at('dist', 'console', 'index.html'),
    build: () => run(process.execPath, [at('console', 'build.mjs')]),
  },
];

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${path.basename(cmd)} ${args.join(' ')} failed`);
}

/** src/**\/*.ts to dist/src as CommonJS, file by file, as tsc lays it out (rootDir "."). */
async function transpileDaemon() {
  const { build } = await import('esbuild');
  const entryPoints = filesUnder(at('src'), (n) => n.endsWith('.ts') && !n.endsWith('.d.ts'));
  await build({
    entryPoints, outbase: root, outdir: at('dist'), format: 'cjs', platform: 'node', target: 'node20',
    sourcemap: true, tsconfig: at('tsconfig.json'), logLevel: 'warning',
  });
  fs.chmodSync(at('dist', 'src', 'cli', 'main.js'), 0o755);
  // main.js last: its time is what says the output is current
  const main = at('dist', 'src', 'main.js');
  const now = new Date();
  fs.utimesSync(main, now, now);
}

const stale = PARTS.filter((p) => newest(p.sources()) >= mtime(p.output));
if (process.argv.includes('--check')) {
  process.stdout.write(stale.length ? `to compile: ${stale.map((p) => p.name).join(', ')}\n` : 'dist is current\n');
  process.exit(stale.length ? 1 : 0);
}
for (const part of stale) {
  const t0 = Date.now();
  await part.build();
  process.stderr.write(`fwd: ${part.name} compiled in ${((Date.now() - t0) / 1000).toFixed(1)} s (no type check: npm run build)\n`);
}
await import(pathToFileURL(at('dist', 'src', 'main.js')).href);
