// Builds the console into dist/console: one script and one style sheet, minified, with a
// content hash in their names (cached for a year by the daemon), and index.html naming them.
// Run by `npm run build` after the type checks (tsc -p console/tsconfig.json).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, '..', 'dist', 'console');
fs.rmSync(out, { recursive: true, force: true });

const result = await build({
  entryPoints: { app: path.join(here, 'src', 'main.tsx') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: path.join(out, 'assets'),
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((f) => '/' + path.relative(out, f).split(path.sep).join('/'));
const script = outputs.find((f) => f.endsWith('.js'));
const style = outputs.find((f) => f.endsWith('.css'));
const html = fs.readFileSync(path.join(here, 'index.html'), 'utf8').replace('__SCRIPT__', script).replace('__STYLE__', style);
fs.writeFileSync(path.join(out, 'index.html'), html);
