// A real syslog receiver for tests: Debian's rsyslogd in the foreground, with a configuration
// of its own in a temporary folder, listening on free loopback ports with imudp, imtcp and
// imtcp over TLS (the gtls driver of rsyslog-gnutls, the test's certificate). Each input
// writes what rsyslog itself parsed of a message (its RFC 5424 fields, the structured data
// decoded by mmpstrucdata, the raw text) as one JSON line a message to a file of its own.
// stop() and start() restart it on the same ports.
import { spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import path from 'node:path';
import { fixedPort } from './redis';
import { tempDir } from './temp-dirs';
import type { TestCert } from './tls';
import { ownChild, waitForPort } from './watchdog';
import { requirePackages, SYSLOG_PACKAGES } from './packages';

export type Input = 'udp' | 'tcp' | 'tls';

/** A message as rsyslog parsed it. */
export interface Received {
  pri: number;
  version: string;
  timestamp: string;
  hostname: string;
  app: string;
  procid: string;
  msgid: string;
  /** the structured data as rsyslog's mmpstrucdata decoded it: SD-ID -> name -> value */
  sd: Record<string, Record<string, string>>;
  msg: string;
  /** the message as it arrived (without the octet count of tcp and tls) */
  raw: string;
}

export interface TestRsyslog {
  ports: Record<Input, number>;
  /** the messages received on `input` so far, in order */
  received(input: Input): Received[];
  /** the first message on `input` that `match` accepts, waiting for it (rejects after `ms`) */
  waitFor(input: Input, match: (r: Received) => boolean, ms?: number): Promise<Received>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const RSYSLOGD = '/usr/sbin/rsyslogd';

function config(dir: string, ports: Record<Input, number>, cert: TestCert): string {
  const fields = ['pri', 'protocol-version', 'timereported', 'hostname', 'app-name', 'procid', 'msgid', 'msg', 'rawmsg']
    .map((name) => `  property(outname="${name}" name="${name}" format="jsonf"${name === 'timereported' ? ' dateFormat="rfc3339"' : ''})`)
    .join('\n');
  const rulesets = (['udp', 'tcp', 'tls'] as const)
    .map((i) => `ruleset(name="${i}") {\n  action(type="mmpstrucdata" sd_name.lowercase="off")\n  action(type="omfile" file="${dir}/${i}.log" template="parsed")\n}`)
    .join('\n');
  return `global(workDirectory="${dir}" maxMessageSize="64k"
  defaultNetstreamDriverCAFile="${cert.cert}" defaultNetstreamDriverCertFile="${cert.cert}" defaultNetstreamDriverKeyFile="${cert.key}")
module(load="imudp")
module(load="imtcp" maxSessions="200")
module(load="mmpstrucdata")
template(name="parsed" type="list" option.jsonf="on") {
${fields}
  property(outname="sd" name="$!rfc5424-sd" format="jsonf")
}
${rulesets}
input(type="imudp" address="127.0.0.1" port="${ports.udp}" ruleset="udp")
input(type="imtcp" address="127.0.0.1" port="${ports.tcp}" ruleset="tcp")
input(type="imtcp" address="127.0.0.1" port="${ports.tls}" ruleset="tls" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")
`;
}

/** A loopback port free for both TCP and UDP. */
async function port(): Promise<number> {
  for (;;) {
    const p = await fixedPort();
    const free = await new Promise<boolean>((resolve) => {
      const s = dgram.createSocket('udp4');
      s.on('error', () => resolve(false));
      s.bind(p, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return p;
  }
}

function parse(line: string): Received {
  const j = JSON.parse(line) as Record<string, string>;
  return {
    pri: Number(j.pri), version: j['protocol-version'], timestamp: j.timereported, hostname: j.hostname, app: j['app-name'],
    procid: j.procid, msgid: j.msgid, sd: j.sd ? JSON.parse(j.sd) : {}, msg: j.msg, raw: j.rawmsg,
  };
}

export async function startRsyslog(cert: TestCert): Promise<TestRsyslog> {
  requirePackages(SYSLOG_PACKAGES, 'the syslog tests');
  const dir = tempDir('fwd-rsyslog-');
  const ports = { udp: await port(), tcp: await port(), tls: await port() };
  const conf = path.join(dir, 'rsyslog.conf');
  fs.writeFileSync(conf, config(dir, ports, cert));
  let proc: ChildProcess | null = null;
  let output = '';

  const received = (input: Input): Received[] => {
    const file = path.join(dir, `${input}.log`);
    if (!fs.existsSync(file)) return [];
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(parse);
  };

  const waitFor = async (input: Input, match: (r: Received) => boolean, ms = 20_000): Promise<Received> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = received(input).find(match);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no such message on ${input} within ${ms} ms; received: ${JSON.stringify(received(input).map((r) => r.raw))}; rsyslogd: ${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const start = async (): Promise<void> => {
    output = '';
    const p = spawn(RSYSLOGD, ['-n', '-f', conf, '-i', path.join(dir, 'rsyslogd.pid')], { stdio: ['ignore', 'pipe', 'pipe'] });
    ownChild(p);
    p.stdout!.on('data', (b) => { output += b.toString(); });
    p.stderr!.on('data', (b) => { output += b.toString(); });
    proc = p;
    await waitForPort(ports.tcp, p, () => output);
    await waitForPort(ports.tls, p, () => output);
    // a datagram cannot tell whether imudp listens yet: probe until one is written
    const probe = dgram.createSocket('udp4');
    const tag = `probe-${Date.now()}`;
    try {
      const seen = waitFor('udp', (r) => r.msg === tag, 10_000);
      const timer = setInterval(() => probe.send(`<14>1 - - test - - - ${tag}`, ports.udp, '127.0.0.1'), 50);
      await seen.finally(() => clearInterval(timer));
    } finally {
      probe.close();
    }
  };

  const stop = async (): Promise<void> => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => p.once('exit', () => resolve()));
    p.kill('SIGTERM');
    await exited;
  };

  await start();
  return { ports, received, waitFor, start, stop };
}
