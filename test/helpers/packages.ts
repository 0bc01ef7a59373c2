// The Debian packages the suites run, named in one place: each suite that runs a program (or
// loads a plugin) a package brings calls requirePackages first, which installs what is missing
// when the tests run as root (apt-get, with one `apt-get update` when the lists are stale or
// absent, as on a fresh machine), and otherwise fails saying which packages to install. So
// README's `npm ci && npm test` passes on a fresh Debian machine and on one that has half of
// them (issue 43: rsyslog without rsyslog-gnutls failed the syslog suites with
// "could not load module 'lmnsd_gtls'"). README's package table lists the same sets.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** [what shows the package is there, the package]: a command name, or a file path whose one `*` stands for a folder (the multiarch triplet). */
export type Need = [probe: string, pkg: string];

/** The data-plane lab: nftables in network namespaces, dnsmasq, conntrack, the traffic log's ulogd2 and its JSON output. */
export const DATAPLANE_PACKAGES: Need[] = [
  ['nft', 'nftables'], ['ip', 'iproute2'], ['dnsmasq', 'dnsmasq'], ['busybox', 'busybox'], ['conntrack', 'conntrack'], ['python3', 'python3-minimal'],
  ['ulogd', 'ulogd2'], ['/usr/lib/*/ulogd/ulogd_output_JSON.so', 'ulogd2-json'],
];
/** Syslog forwarding's receiver: rsyslogd, and rsyslog-gnutls for the tls:// target (lmnsd_gtls); openssl makes its certificate. */
export const SYSLOG_PACKAGES: Need[] = [['rsyslogd', 'rsyslog'], ['/usr/lib/*/rsyslog/lmnsd_gtls.so', 'rsyslog-gnutls'], ['openssl', 'openssl']];
export const REDIS_PACKAGES: Need[] = [['redis-server', 'redis-server']];
export const SENTINEL_PACKAGES: Need[] = [['redis-sentinel', 'redis-sentinel']];
export const PROXY_PACKAGES: Need[] = [['haproxy', 'haproxy'], ['nginx', 'nginx']];
export const TLS_PACKAGES: Need[] = [['openssl', 'openssl']];
/** The console's browser tests: Debian's chromium (unless FW_CHROMIUM names another). */
export const BROWSER_PACKAGES: Need[] = [['/usr/bin/chromium', 'chromium']];
/** The Debian package's tests: build (strip), lint, the unit's analysis, notify, a system user's capabilities. */
export const SERVICE_PACKAGES: Need[] = [
  ['lintian', 'lintian'], ['systemd-analyze', 'systemd'], ['systemd-notify', 'systemd'], ['setpriv', 'util-linux'], ['strip', 'binutils'],
  ['python3', 'python3-minimal'], ['dpkg-deb', 'dpkg'],
];

function sh(argv: string[]): string {
  return execFileSync(argv[0], argv.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

/** the probes found once: a suite's many daemons or receivers look once */
const found = new Set<string>();

/** Whether the probe is there: a file (one `*` for one folder level) or a command on PATH. */
export function present(probe: string): boolean {
  if (found.has(probe)) return true;
  const there = look(probe);
  if (there) found.add(probe);
  return there;
}

function look(probe: string): boolean {
  if (probe.startsWith('/')) {
    const star = probe.indexOf('*');
    if (star < 0) return fs.existsSync(probe);
    const parent = path.dirname(probe.slice(0, star + 1));
    const rest = probe.slice(probe.indexOf('/', star));
    return fs.existsSync(parent) && fs.readdirSync(parent).some((d) => fs.existsSync(path.join(parent, d) + rest));
  }
  try {
    sh(['sh', '-c', `command -v '${probe}'`]);
    return true;
  } catch {
    return false;
  }
}

/** The packages of `needs` whose probe is missing. */
export function missingPackages(needs: Need[]): string[] {
  return [...new Set(needs.filter(([probe]) => !present(probe)).map(([, pkg]) => pkg))];
}

/**
 * Installs the missing packages of `needs` (root only), or throws naming them and `who` needs
 * them: never a silent skip.
 */
export function requirePackages(needs: Need[], who = 'these tests'): void {
  const missing = missingPackages(needs);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) throw new Error(`${who} need the Debian packages ${missing.join(', ')}: run npm test as root (they are installed then) or apt-get install them`);
  const install = () => sh(['apt-get', 'install', '-y', '-qq', ...missing]);
  try {
    install();
  } catch {
    try {
      sh(['apt-get', 'update', '-qq']); // a fresh machine has no package lists yet
      install();
    } catch (e) {
      throw new Error(`${who} need the Debian packages ${missing.join(', ')}; apt-get install failed: ${(e as Error).message}`);
    }
  }
  const still = missingPackages(needs);
  if (still.length) throw new Error(`${who}: after apt-get install, still missing ${still.join(', ')}`);
}
