// The one dnsmasq process of this firewall: restarted when its configuration changes, stopped
// when no pool is left and when the daemon stops (unless FW_HELPERS_ON_STOP=keep). It runs as
// a HelperProcess: a restart of the daemon leaves it serving, and the next start adopts it
// when its configuration is the one wanted (no DHCP gap), else restarts it.
import fs from 'node:fs';
import path from 'node:path';
import type { Host } from './host';
import { HelperProcess } from './helper-process';

/** How often the log is read for dnsmasq's start line. */
const START_POLL_MS = 20;

export class DnsmasqProcess {
  private readonly helper: HelperProcess;
  private conf = '';
  /** whether ensure() ran once: the first one also looks for a dnsmasq an earlier run left */
  private looked = false;

  constructor(private readonly host: Host, private readonly dir: string) {
    this.helper = new HelperProcess(host, this.confFile, path.join(dir, 'dnsmasq.pid'), path.join(dir, 'dnsmasq.log'));
  }

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
    if (this.looked && conf === this.conf && (conf === '' || this.helper.alive())) return;
    this.looked = true;
    const running = this.helper.found();
    if (running !== null && conf !== '' && this.writtenConf() === conf) {
      this.helper.adopt(running); // an earlier run's dnsmasq serves this configuration already
      this.conf = conf;
      return;
    }
    await this.helper.stop();
    this.conf = '';
    if (conf === '') return;
    fs.mkdirSync(this.dir, { recursive: true });
    fs.writeFileSync(this.confFile, conf);
    // its log to the file (--log-facility=-: standard error), the routine DHCP lines left out
    const child = this.helper.start('dnsmasq', [
      '--keep-in-foreground', `--conf-file=${this.confFile}`, '--log-facility=-', '--quiet-dhcp', '--quiet-dhcp6', '--quiet-ra',
      '--user=root', '--group=root', `--pid-file=${this.helper.pidFile}`,
    ]);
    await new Promise<void>((resolve, reject) => {
      let done = false;
      const finish = (err?: Error) => {
        if (done) return;
        done = true;
        clearInterval(poll);
        if (err) reject(err);
        else resolve();
      };
      const poll = setInterval(() => {
        if (/started, version/.test(this.logText())) finish();
      }, START_POLL_MS);
      child.once('error', (e) => finish(new Error(`dnsmasq: ${e.message}`)));
      child.once('exit', (code) => finish(new Error(`dnsmasq exited (${code}): ${this.logText().trim()}`)));
    });
    this.conf = conf;
  }

  private writtenConf(): string | null {
    try {
      return fs.readFileSync(this.confFile, 'utf8');
    } catch {
      return null;
    }
  }

  private logText(): string {
    try {
      return fs.readFileSync(this.helper.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  async stop(): Promise<void> {
    this.conf = '';
    await this.helper.stop();
  }
}
