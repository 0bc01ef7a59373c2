// systemd's notification socket, played by a test: an AF_UNIX datagram socket (NOTIFY_SOCKET)
// that the daemon's notifications arrive on. Node cannot bind one, so python3 does (the
// Debian package python3-minimal; data-plane tests install it when missing) and prints each
// datagram as a line of JSON. A BARRIER=1 message of systemd-notify carries a descriptor that
// the read closes (a recv without room for it), which ends the sender's wait, as systemd does.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { ownChild } from './watchdog';
import { tempDir } from './temp-dirs';

const READER = `
import json, os, socket, sys
path = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
os.chmod(path, 0o666)  # the daemon under test may run as another user
print(json.dumps({"bound": True}), flush=True)
while True:
    data = s.recv(65536)
    print(json.dumps({"data": data.decode("utf-8", "replace")}), flush=True)
`;

export interface Notification {
  /** Date.now() when the test read it */
  at: number;
  fields: Record<string, string>;
}

export class FakeNotifySocket {
  /** every notification so far, BARRIER=1 left out */
  readonly received: Notification[] = [];
  private readonly waiters = new Set<() => void>();

  private constructor(readonly path: string, private readonly proc: ChildProcess) {}

  /** Binds a socket in a new folder that any user may reach (a daemon run as another user sends to it). */
  static async open(): Promise<FakeNotifySocket> {
    const dir = tempDir('fwd-notify-');
    fs.chmodSync(dir, 0o755);
    const file = path.join(dir, 'notify');
    const proc = spawn('python3', ['-c', READER, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    ownChild(proc);
    const sock = new FakeNotifySocket(file, proc);
    await new Promise<void>((resolve, reject) => {
      proc.once('exit', (code) => reject(new Error(`the notification socket's reader exited (${code})`)));
      readline.createInterface({ input: proc.stdout! }).on('line', (line) => {
        const m = JSON.parse(line) as { bound?: boolean; data?: string };
        if (m.bound) resolve();
        if (m.data === undefined) return;
        const fields = Object.fromEntries(m.data.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
        if (fields.BARRIER === '1') return;
        sock.received.push({ at: Date.now(), fields });
        for (const w of sock.waiters) w();
      });
    });
    return sock;
  }

  /** The notifications that set `field` (in order). */
  with(field: string): Notification[] {
    return this.received.filter((n) => field in n.fields);
  }

  /** Waits for a notification (from index `from` on) matching `match`; rejects after `ms` with what came. */
  next(match: (n: Notification) => boolean, ms = 30_000, from = 0): Promise<Notification> {
    return new Promise((resolve, reject) => {
      const look = () => {
        const found = this.received.slice(from).find(match);
        if (!found) return;
        done();
        resolve(found);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no such notification within ${ms} ms; received: ${JSON.stringify(this.received.map((n) => n.fields))}`));
      }, ms);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(look);
      };
      this.waiters.add(look);
      look();
    });
  }

  close(): void {
    this.proc.kill();
  }
}
