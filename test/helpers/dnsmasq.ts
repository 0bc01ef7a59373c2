// A DNS server of the test's own for FQDN addresses (issue 40): dnsmasq on a free loopback
// port answering one domain from a hosts file the test rewrites (then SIGHUP: dnsmasq reads
// addn-hosts again), with a TTL of 1 s (--local-ttl) so that the daemon's refresh follows it.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { DATAPLANE_PACKAGES, requirePackages } from './packages';
import { freePort } from './redis';

export class TestDns {
  private proc: ChildProcess | null = null;
  readonly hostsFile: string;
  port = 0;

  /** `dir`: where the hosts file lives; `domain`: the one domain answered (never forwarded). */
  constructor(dir: string, private readonly domain: string) {
    this.hostsFile = path.join(dir, `dns-hosts-${process.pid}`);
  }

  /** FW_DNS_SERVERS for a daemon asking this server. */
  get server(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(lines: string[]): Promise<this> {
    requirePackages(DATAPLANE_PACKAGES.filter(([probe]) => probe === 'dnsmasq'), 'the FQDN address tests');
    this.write(lines);
    // started again after stop(): the same port, the one the daemon was told
    if (!this.port) this.port = await freePort();
    this.proc = spawn('dnsmasq', ['--keep-in-foreground', `--port=${this.port}`, '--listen-address=127.0.0.1', '--bind-interfaces',
      '--no-resolv', '--no-hosts', `--local=/${this.domain}/`, `--addn-hosts=${this.hostsFile}`, '--local-ttl=1', '--user=root', '--pid-file=', '--conf-file=/dev/null'],
    { stdio: 'ignore' });
    return this;
  }

  private write(lines: string[]): void {
    writeFileSync(this.hostsFile, `${lines.join('\n')}\n`);
  }

  /** Rewrites the hosts file and makes dnsmasq read it again: its next answers are these. */
  answer(lines: string[]): void {
    this.write(lines);
    this.proc?.kill('SIGHUP');
  }

  /** Stops the server (the daemon's next resolution fails). */
  async stop(): Promise<void> {
    const p = this.proc;
    this.proc = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    await exited;
  }
}
