// The one ulogd of the traffic log: Debian's ulogd2 reads the kernel's NFLOG group of our
// logging rules (nft.ts) in the data plane's namespace and writes each packet as a line of
// JSON to the daemon's unix socket (traffic-kernel.ts). Run like dnsmasq: started with the
// data plane when a configuration logs, stopped when none does and when the daemon stops.
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { stopChild, type Host } from './host';

const PLUGINS = '/usr/lib/x86_64-linux-gnu/ulogd';

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
  private child: ChildProcess | null = null;

  constructor(private readonly host: Host, private readonly dir: string) {}

  get logFile(): string {
    return path.join(this.dir, 'ulogd.log');
  }

  get running(): boolean {
    return this.child !== null;
  }

  /**
   * Starts ulogd for `group`, writing to `socketPath` (already listening); resolves once ulogd
   * connected to it (`connected` resolves then), rejects with the end of ulogd's log.
   */
  async start(group: number, socketPath: string, connected: Promise<void>): Promise<void> {
    if (this.child) return;
    fs.mkdirSync(this.dir, { recursive: true });
    const conf = path.join(this.dir, 'ulogd.conf');
    fs.writeFileSync(conf, renderUlogdConf(group, socketPath, this.logFile));
    this.stopStale(conf);
    const child = this.host.spawn('ulogd', ['-c', conf, '-p', this.pidFile]);
    child.stderr!.resume();
    await new Promise<void>((resolve, reject) => {
      const failed = (why: string) => reject(new Error(`ulogd ${why}: ${this.logTail()}`));
      child.once('error', (e) => failed(e.message));
      child.once('exit', (code) => failed(`exited (${code})`));
      connected.then(resolve, reject);
    });
    child.removeAllListeners('exit');
    child.on('exit', () => { if (this.child === child) this.child = null; });
    this.child = child;
  }

  get pidFile(): string {
    return path.join(this.dir, 'ulogd.pid');
  }

  /**
   * A ulogd left by an earlier run of the daemon on this data folder (killed without its
   * stop: SIGKILL, a crash) still holds the NFLOG group: it goes first (only if it is ours:
   * its command line names our configuration file).
   */
  private stopStale(conf: string): void {
    let pid: number;
    try {
      pid = Number(fs.readFileSync(this.pidFile, 'utf8').trim());
      if (!(pid > 1) || !fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(conf)) return;
    } catch {
      return; // no pid file, or no such process
    }
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone meanwhile
    }
  }

  private logTail(): string {
    try {
      return fs.readFileSync(this.logFile, 'utf8').trim().split('\n').slice(-3).join('; ');
    } catch {
      return '(no log)';
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    await stopChild(child);
  }
}
