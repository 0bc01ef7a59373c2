// npm run package: the Debian package fwd_<version>_<arch>.deb, made with dpkg-deb from what
// `npm run build` compiled and the production dependencies already in node_modules (nothing is
// downloaded). What goes where, and why, is in deploy/debian/ and docs/operations.md:
//
//   /usr/lib/fwd           the compiled daemon, console and fwctl, package.json, node_modules
//   /usr/bin/fwd, fwctl    starters (the daemon with glibc's malloc settings, as npm start)
//   /lib/systemd/system    fwd.service; the FW_NETNS drop-in is an example in /usr/share/doc
//   /etc/fwd/fwd.env       the settings, a conffile (0640, group fwd from the postinst)
//   DEBIAN/                control, conffiles, md5sums, postinst, prerm, postrm
//
// The native modules kept are the ones this machine's Node.js loads (its architecture and
// module ABI), so the package depends on that Node.js major version. `--out DIR`: where the
// .deb goes (default: the project's folder). Times are the last commit's (or
// SOURCE_DATE_EPOCH), so two builds of one commit give the same files.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (...p) => path.join(root, ...p);
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: 'utf8', cwd: root, ...opts });

const outIndex = process.argv.indexOf('--out');
const outDir = path.resolve(outIndex > 0 ? process.argv[outIndex + 1] : root);
const pkg = JSON.parse(fs.readFileSync(at('package.json'), 'utf8'));
const version = pkg.version;
const arch = run('dpkg', ['--print-architecture']).trim();
/** ELF machine numbers (e_machine) of the Debian architectures Node.js runs on */
const ELF_MACHINE = { amd64: 62, arm64: 183, armhf: 40, i386: 3, ppc64el: 21, s390x: 22, riscv64: 243 };
const nodeMajor = Number(process.versions.node.split('.')[0]);
const maintainer = process.env.FWD_DEB_MAINTAINER || 'fwd maintainers <fwd-maintainers@users.noreply.github.com>';
const epoch = Number(process.env.SOURCE_DATE_EPOCH || lastCommitTime());

function lastCommitTime() {
  try {
    return run('git', ['log', '-1', '--format=%ct']).trim();
  } catch {
    return String(Math.floor(Date.now() / 1000));
  }
}

for (const built of ['dist/src/main.js', 'dist/src/cli/main.js', 'dist/console/index.html']) {
  if (!fs.existsSync(at(built))) throw new Error(`${built} is missing: npm run build first (npm run package does)`);
}

const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'fwd-deb-'));
fs.chmodSync(stage, 0o755); // the package's root folder: /
const lib = path.join(stage, 'usr/lib/fwd');
const doc = path.join(stage, 'usr/share/doc/fwd');

function put(rel, content, mode = 0o644) {
  const file = path.join(stage, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  fs.chmodSync(file, mode);
}

/** The production dependencies (npm's own list of what `--omit=dev` keeps), outermost first. */
function productionModules() {
  const paths = run('npm', ['ls', '--omit=dev', '--all', '--parseable'], { maxBuffer: 16 << 20 })
    .split('\n').filter((p) => p && p !== root).map((p) => path.relative(root, p)).sort();
  // a module nested in another one kept comes with it
  return paths.filter((p, i) => !paths.slice(0, i).some((q) => p.startsWith(`${q}${path.sep}`)));
}

/**
 * Whether a native file is one this machine's Node.js loads: an ELF object of this
 * architecture, linked against glibc, and, when its name carries a module ABI (uws_linux_x64_115,
 * node.abi115), this Node.js's.
 */
function loadableHere(file) {
  const head = Buffer.alloc(20);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, 20, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (head.readUInt32BE(0) !== 0x7f454c46 || head.readUInt16LE(18) !== ELF_MACHINE[arch]) return false;
  const name = path.basename(file);
  if (/musl/.test(name)) return false;
  const abi = /_(\d+)\.node$/.exec(name)?.[1] ?? /\.abi(\d+)\./.exec(name)?.[1];
  return abi === undefined || abi === process.versions.modules;
}

/**
 * Removes what the daemon never loads: other platforms' native files, the modules' dot files
 * (.bin links, .npmignore, lint and CI settings); strips the native files kept of their
 * symbols, as dh_strip does for every Debian package, and makes them 0644 (dlopen needs no
 * execute bit).
 */
function prune(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.name.startsWith('.')) fs.rmSync(p, { recursive: true });
    else if (e.isDirectory()) prune(p);
    else if (/\.(node|so|dll|dylib)$/.test(e.name)) {
      if (!loadableHere(p)) {
        fs.rmSync(p);
        continue;
      }
      run('strip', ['--strip-unneeded', '--remove-section=.comment', '--remove-section=.note', p]);
      fs.chmodSync(p, 0o644);
    }
  }
}

/** The highest GLIBC_x.y symbol version the native files need (Depends: libc6 (>= x.y)). */
function glibcNeeded(dir) {
  let best = [2, 17];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.node')) {
        for (const m of fs.readFileSync(p).toString('latin1').matchAll(/GLIBC_(\d+)\.(\d+)/g)) {
          const v = [Number(m[1]), Number(m[2])];
          if (v[0] > best[0] || (v[0] === best[0] && v[1] > best[1])) best = v;
        }
      }
    }
  };
  walk(dir);
  return best.join('.');
}

/** usr/share/doc/fwd/copyright (machine-readable): the daemon and each bundled module's licence. */
function copyright(modules) {
  const lines = [
    'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/',
    'Upstream-Name: fwd',
    '',
    'Files: *',
    `Copyright: ${new Date(epoch * 1000).getUTCFullYear()} the fwd authors`,
    `License: ${pkg.license}`,
    ' fwd is not published under a free licence; its use is governed by its authors.',
  ];
  for (const m of modules) {
    const meta = JSON.parse(fs.readFileSync(at(m, 'package.json'), 'utf8'));
    const license = typeof meta.license === 'string' ? meta.license : meta.license?.type ?? 'see the module';
    lines.push('', `Files: usr/lib/fwd/${m.split(path.sep).join('/')}/*`, `Copyright: the authors of ${meta.name} ${meta.version}`,
      `License: ${license}`, ` The text is the module's own, in its folder (LICENSE, or package.json).`);
  }
  return `${lines.join('\n')}\n`;
}

function changelog() {
  const date = new Date(epoch * 1000).toUTCString().replace('GMT', '+0000');
  return `fwd (${version}) unstable; urgency=medium\n\n  * fwd ${version}, built from the project's sources (history: git log).\n\n -- ${maintainer}  ${date}\n`;
}

/** Sets modes (folders 0755, files 0644 or 0755 when executable) and times under `dir`. */
function normalize(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      normalize(p);
      fs.chmodSync(p, 0o755);
    } else if (e.isFile() && !p.startsWith(path.join(stage, 'etc')) && !e.name.endsWith('.node')) {
      fs.chmodSync(p, fs.statSync(p).mode & 0o111 ? 0o755 : 0o644);
    }
    fs.lutimesSync(p, epoch, epoch);
  }
}

function md5sums() {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      const rel = path.relative(stage, p);
      if (rel === 'DEBIAN' || rel.startsWith('etc')) continue; // conffiles are not listed
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(`${crypto.createHash('md5').update(fs.readFileSync(p)).digest('hex')}  ${rel}`);
    }
  };
  walk(stage);
  return `${out.join('\n')}\n`;
}

function installedSizeKiB() {
  let bytes = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (path.relative(stage, p) !== 'DEBIAN') walk(p);
      } else bytes += Math.ceil(fs.lstatSync(p).size / 1024) * 1024;
    }
  };
  walk(stage);
  return Math.ceil(bytes / 1024);
}

try {
  // the daemon, console and fwctl (no tests, no benchmarks)
  fs.cpSync(at('dist/src'), path.join(lib, 'dist/src'), { recursive: true });
  fs.cpSync(at('dist/console'), path.join(lib, 'dist/console'), { recursive: true });
  const { devDependencies, scripts, ...runtime } = pkg; // eslint-disable-line no-unused-vars
  put('usr/lib/fwd/package.json', `${JSON.stringify(runtime, null, 2)}\n`);
  const modules = productionModules();
  for (const m of modules) fs.cpSync(at(m), path.join(lib, m), { recursive: true });
  prune(path.join(lib, 'node_modules'));
  fs.chmodSync(path.join(lib, 'dist/src/cli/main.js'), 0o755);

  const starter = (script, what) => `#!/bin/sh\n# ${what} (/usr/lib/fwd)\n: "\${MALLOC_ARENA_MAX:=2}" "\${MALLOC_MMAP_THRESHOLD_:=131072}"\nexport MALLOC_ARENA_MAX MALLOC_MMAP_THRESHOLD_\nhere=$(dirname "$(readlink -f "$0")")\nexec /usr/bin/node "$here/../lib/fwd/${script}" "$@"\n`;
  put('usr/bin/fwd', starter('dist/src/main.js', 'fwd, the firewall daemon; glibc malloc settings as npm start sets them (src/malloc-env.ts)'), 0o755);
  put('usr/bin/fwctl', `#!/bin/sh\n# fwctl, the command-line client of fwd's API (/usr/lib/fwd)\nhere=$(dirname "$(readlink -f "$0")")\nexec /usr/bin/node "$here/../lib/fwd/dist/src/cli/main.js" "$@"\n`, 0o755);
  put('lib/systemd/system/fwd.service', fs.readFileSync(at('deploy/debian/fwd.service')));
  put('etc/fwd/fwd.env', fs.readFileSync(at('deploy/debian/fwd.env')), 0o640);
  put('usr/share/doc/fwd/examples/netns.conf', fs.readFileSync(at('deploy/debian/netns.conf')));
  put('usr/share/doc/fwd/README.md', fs.readFileSync(at('README.md')));
  put('usr/share/doc/fwd/operations.md', fs.readFileSync(at('docs/operations.md')));
  put('usr/share/doc/fwd/copyright', copyright(modules));
  put('usr/share/doc/fwd/changelog.gz', zlib.gzipSync(changelog(), { level: 9 }));
  for (const script of ['postinst', 'prerm', 'postrm']) put(`DEBIAN/${script}`, fs.readFileSync(at('deploy/debian', script)), 0o755);
  put('DEBIAN/conffiles', '/etc/fwd/fwd.env\n');
  for (const top of ['usr', 'lib', 'etc']) normalize(path.join(stage, top));
  put('DEBIAN/md5sums', md5sums());
  const depends = [
    'adduser', `nodejs (>= ${nodeMajor})`, `nodejs (<< ${nodeMajor + 1})`, `libc6 (>= ${glibcNeeded(lib)})`,
    'nftables', 'iproute2', 'conntrack', 'dnsmasq-base', 'ulogd2', 'ulogd2-json', 'keepalived', 'conntrackd',
  ];
  put('DEBIAN/control', [
    'Package: fwd',
    `Version: ${version}`,
    `Architecture: ${arch}`,
    `Maintainer: ${maintainer}`,
    `Installed-Size: ${installedSizeKiB()}`,
    `Depends: ${depends.join(', ')}`,
    'Section: net',
    'Priority: optional',
    'Description: firewall management daemon with a JSON REST API',
    ' fwd configures a Linux firewall (nftables rules, links, addresses and routes,',
    ' DHCP with dnsmasq, a traffic log through ulogd) through a JSON REST API, a web',
    ' console and the fwctl client. Changes go into a candidate configuration inside',
    ' an exclusive session; a commit validates, compiles and enforces it.',
    ' It runs as the systemd service fwd.service, as user fwd with only the',
    ' capabilities it needs.',
    '',
  ].join('\n'));
  fs.mkdirSync(outDir, { recursive: true });
  const deb = path.join(outDir, `fwd_${version}_${arch}.deb`);
  run('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z9', '--build', stage, deb], { env: { ...process.env, SOURCE_DATE_EPOCH: String(epoch) }, stdio: ['ignore', 'ignore', 'inherit'] });
  process.stdout.write(`${deb}\n`);
} finally {
  fs.rmSync(stage, { recursive: true, force: true });
}
