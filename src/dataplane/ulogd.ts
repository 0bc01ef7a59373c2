// The one ulogd of the traffic log: Debian's ulogd2 reads the kernel's NFLOG group of our
// logging rules (nft.ts) in the data plane's namespace and writes each packet as a line of
// JSON to the daemon's unix socket (traffic-kernel.ts). Run like dnsmasq (a HelperProcess):
// started with the data plane when a configuration logs, stopped when none does and when the
// daemon stops (unless FW_HELPERS_ON_STOP=keep: then the next start adopts it).
import fs from 'node:fs';
import path from 'node:path';
import type { Host } from './host';
import { HelperProcess } from './helper-process';

/**
 * Debian's ulogd2 plugin folder, /usr/lib/<multiarch triplet>/ulogd (x86_64-linux-gnu on
 * amd64, aarch64-linux-gnu on arm64...): the package is built for one architecture, the code
 * runs on any.
 */
function pluginDir(): string {
  try {
    const triplet = fs.readdirSync('/usr/lib').find((d) => /-linux-gnu/.test(d) && fs.existsSync(`/usr/lib/${d}/ulogd`));
    if (triplet) return `/usr/lib/${triplet}/ulogd`;
  } catch {
    // no /usr/lib to read: the amd64 path below, which ulogd then reports missing
  }
  return '/usr/lib/x86_64-linux-gnu/ulogd';
}
const PLUGINS = pluginDir();

/**
 * ulogd's configuration (pure). The kernel batches up to 32 packets or 50 ms per netlink
 * message (fewer wake-ups under a flood, a record late by at most 50 ms), into a socket
 * buffer ulogd may grow to 8 MB before the kernel drops.
 */
export function renderUlogdConf(group: number, socketPath: string, logFile: string, pluginDir = PLUGINS): string {
  const plugins = ['inppkt_NFLOG', 'raw2packet_BASE', 'filter_IFINDEX', 'filter_IP2STR', 'output_JSON'];
  return [
    '# managed by fwd',
    '[global]',
    `logfile="${logFile}"`,
    'loglevel=5',
    ...plugins.map((p) => `plugin="${pluginDir}/ulogd_${p}.so"`),
    'stack=log1:NFLOG,base1:BASE,ifi1:IFINDEX,ip2str1:IP2STR,json1:JSON',
    '[log1]',
    `group=${group}`,
    'netlink_qthreshold=32',
    'netlink_qtimeout=5',
    'netlink_socket_buffer_size=1048576',
    'netlink_socket_buffer_maxsize=8388608',
    '[json1]',
    'mode="unix"',
    `file="${socketPath}"`,
    'sync=1',
    '',
  ].join('\n');
}

export class UlogdProcess {
  private readonly helper: HelperProcess;

  constructor(host: Host, private readonly dir: string) {
    this.helper = new HelperProcess(host, path.join(dir, 'ulogd.conf'), path.join(dir, 'ulogd.pid'), path.join(dir, 'ulogd.out'));
  }

  get logFile(): string {
    return path.join(this.dir, 'ulogd.log');
  }

  get running(): boolean {
    return this.helper.alive();
  }

  /**
   * Starts ulogd for `group`, writing to `socketPath` (already listening); resolves once ulogd
   * connected to it (`connected` resolves then), rejects with the end of ulogd's log. A ulogd
   * an earlier run of the daemon left on the same configuration is adopted instead: it
   * connects to the new socket by itself at its next record (the one record it tried on the
   * old socket is lost).
   */
  async start(group: number, socketPath: string, connected: Promise<void>): Promise<void> {
    if (this.helper.alive()) return;
    fs.mkdirSync(this.dir, { recursive: true });
    const conf = renderUlogdConf(group, socketPath, this.logFile);
    const running = this.helper.found();
    if (running !== null && readText(this.helper.confFile) === conf) {
      this.helper.adopt(running);
      return;
    }
    // one on another configuration holds the NFLOG group: it goes first
    await this.helper.stop();
    fs.writeFileSync(this.helper.confFile, conf);
    const child = this.helper.start('ulogd', ['-c', this.helper.confFile, '-p', this.helper.pidFile]);
    await new Promise<void>((resolve, reject) => {
      const failed = (why: string) => reject(new Error(`ulogd ${why}: ${this.logTail()}`));
      const onError = (e: Error) => failed(e.message);
      const onExit = (code: number | null) => failed(`exited (${code})`);
      child.once('error', onError);
      child.once('exit', onExit);
      connected.then(() => {
        child.off('error', onError);
        child.off('exit', onExit);
        resolve();
      }, reject);
    });
  }

  get pidFile(): string {
    return this.helper.pidFile;
  }

  private logTail(): string {
    try {
      return fs.readFileSync(this.logFile, 'utf8').trim().split('\n').slice(-3).join('; ');
    } catch {
      return '(no log)';
    }
  }

  async stop(): Promise<void> {
    await this.helper.stop();
  }
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
