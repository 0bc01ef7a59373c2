// The one dnsmasq process of this firewall: restarted when its configuration changes, stopped
// when no pool is left and when the daemon stops.
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { stopChild, type Host } from './host';

export class DnsmasqProcess {
  private child: ChildProcess | null = null;
  private conf = '';

  constructor(private readonly host: Host, private readonly dir: string) {}

  get confFile(): string {
    return path.join(this.dir, 'dnsmasq.conf');
  }

  get leaseFile(): string {
    return path.join(this.dir, 'dnsmasq.leases');
  }

  /** dnsmasq's own syntax check of a configuration. */
  async test(conf: string): Promise<void> {
    if (conf === '') return;
    fs.mkdirSync(this.dir, { recursive: true });
    const file = path.join(this.dir, 'dnsmasq.check.conf');
    fs.writeFileSync(file, conf);
    await this.host.exec('dnsmasq', ['--test', `--conf-file=${file}`]);
  }

  /** Runs dnsmasq with `conf` ("" stops it); resolves once it serves, rejects with its message. */
  async ensure(conf: string): Promise<void> {
    if (conf === this.conf && (conf === '' || this.child)) return;
    await this.stop();
    this.conf = '';
    if (conf === '') return;
    fs.mkdirSync(this.dir, { recursive: true });
    fs.writeFileSync(this.confFile, conf);
    const child = this.host.spawn('dnsmasq', [
      '--keep-in-foreground', `--conf-file=${this.confFile}`, '--log-facility=-', '--user=root', '--group=root',
      `--pid-file=${path.join(this.dir, 'dnsmasq.pid')}`,
    ]);
    await new Promise<void>((resolve, reject) => {
      let text = '';
      const onData = (b: Buffer) => {
        text += b.toString('utf8');
        if (/started, version/.test(text)) {
          child.stderr!.off('data', onData);
          child.stderr!.resume(); // keep draining its log
          resolve();
        }
      };
      child.stderr!.on('data', onData);
      child.once('error', (e) => reject(new Error(`dnsmasq: ${e.message}`)));
      child.once('exit', (code) => reject(new Error(`dnsmasq exited (${code}): ${text.trim()}`)));
    });
    child.on('exit', () => { if (this.child === child) this.child = null; });
    this.child = child;
    this.conf = conf;
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    await stopChild(child);
  }
}
