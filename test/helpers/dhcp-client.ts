// A real DHCP client for the packet tests: busybox udhcpc in a namespace, running (not -q) so
// that it holds its lease and renews it on demand (SIGUSR1). Its script records each event
// (`bound`, `renew`, `deconfig`...) with the address and the server identifier, and configures
// the address on the link as a real client does (a renewal is unicast from it).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ownChild } from './watchdog';

export interface DhcpEvent {
  event: string;
  ip: string;
  serverid: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class DhcpClient {
  private readonly proc: ChildProcess;
  private readonly events: string;

  /** Starts udhcpc on `ns`'s eth0; its files in `dir`; `hostname` sent to the server. */
  constructor(ns: string, dir: string, hostname: string) {
    fs.mkdirSync(dir, { recursive: true });
    this.events = path.join(dir, `${hostname}.events`);
    const script = path.join(dir, `${hostname}.sh`);
    fs.writeFileSync(script, [
      '#!/bin/sh',
      `echo "$1 $ip $serverid" >> "${this.events}"`,
      'case "$1" in',
      '  bound|renew) ip address replace "$ip/${mask:-24}" dev "$interface" ;;',
      '  deconfig) ip -4 address flush dev "$interface" ;;',
      'esac',
      'exit 0',
      '',
    ].join('\n'), { mode: 0o755 });
    // -t 3 -T 1: a discover (or a unicast renewal) given up after 3 tries a second apart
    this.proc = spawn('ip', ['netns', 'exec', ns, 'busybox', 'udhcpc', '-i', 'eth0', '-f', '-s', script, '-t', '3', '-T', '1', '-x', `hostname:${hostname}`], { stdio: 'ignore' });
    ownChild(this.proc);
  }

  /** Every event so far, oldest first. */
  history(): DhcpEvent[] {
    let text = '';
    try {
      text = fs.readFileSync(this.events, 'utf8');
    } catch {
      return [];
    }
    return text.split('\n').filter(Boolean).map((l) => {
      const [event, ip = '', serverid = ''] = l.split(' ');
      return { event, ip, serverid };
    });
  }

  /** The first event after the first `skip` ones that `match` accepts (at most `ms`). */
  async waitFor(match: (e: DhcpEvent) => boolean, ms: number, skip = 0): Promise<DhcpEvent> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.history().slice(skip).find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no DHCP event as wanted within ${ms} ms: ${JSON.stringify(this.history())}`);
      await sleep(100);
    }
  }

  /** Asks for a renewal of the lease now (udhcpc's SIGUSR1). */
  renew(): void {
    this.proc.kill('SIGUSR1');
  }

  stop(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
  }
}
