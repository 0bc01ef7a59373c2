// Issue 38 item 4: two daemons on one port. uWebSockets.js listens with SO_REUSEPORT unless
// told otherwise, so a second `npm start` on a port in use said "listening" and the kernel
// spread the connections over both (2 of 10 requests reached the second, empty daemon). The
// listening socket is now exclusive, and a port in use stops the start before the store or
// the data plane is touched, with one line that says what to do.
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import pino from 'pino';
import { HttpServer } from '../../src/api/server';
import { MAIN, kill9, startChild } from '../helpers/process';
import { ADMIN_PASSWORD, Client, tempDir } from '../helpers/daemon';

function startOn(port: number, dir: string) {
  return spawnSync(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', FW_PORT: String(port), FW_INTERFACES: 'eth0', FW_DATA_DIR: dir, FW_ADMIN_PASSWORD: ADMIN_PASSWORD },
    encoding: 'utf8', timeout: 30_000,
  });
}

test('a second daemon on a port in use exits 1 saying so, and every request still reaches the first', async () => {
  const first = await startChild({ FW_DATA_DIR: tempDir() });
  try {
    const port = Number(new URL(first.url).port);
    const client = await new Client(first.url).login();
    await client.begin(); // a session only the first daemon knows of
    const second = startOn(port, tempDir());
    expect({ status: second.status, stderr: second.stderr }).toEqual({
      status: 1,
      stderr: `fwd: 127.0.0.1:${port} is in use by another process (another fwd?): stop it, or set FW_PORT to a free port\n`,
    });
    expect(second.stdout).not.toContain('listening');
    for (let i = 0; i < 10; i++) {
      const r = await new Client(first.url).login().then((c) => c.get('/api/config/session'));
      expect({ status: r.status, active: r.body.active }).toEqual({ status: 200, active: true });
    }
  } finally {
    await kill9(first);
  }
});

test('a port held by another program is refused the same way, and nothing is written to the data folder', async () => {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    const port = (holder.address() as net.AddressInfo).port;
    const dir = tempDir();
    const r = startOn(port, dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`fwd: 127.0.0.1:${port} is in use by another process (another fwd?): stop it, or set FW_PORT to a free port\n`);
    expect(require('node:fs').readdirSync(dir)).toEqual([]);
  } finally {
    holder.close();
  }
});

test('the port is free again after a daemon stops: a restart on it listens', async () => {
  const first = await startChild({ FW_DATA_DIR: tempDir() });
  const port = Number(new URL(first.url).port);
  await kill9(first);
  const again = await startChild({ FW_DATA_DIR: tempDir(), FW_PORT: String(port) });
  try {
    expect(Number(new URL(again.url).port)).toBe(port);
    await new Client(again.url).login('admin', ADMIN_PASSWORD);
  } finally {
    await kill9(again);
  }
});

test('the listener itself is exclusive: two servers racing past the start check, the second is refused', async () => {
  // the start's check and the listen are two steps; two daemons started at the same moment
  // can both pass the check, and then only the exclusive listen keeps the second off the port
  const server = (port: number) => new HttpServer({
    host: '127.0.0.1', port, maxBodyBytes: 1024, logger: pino({ level: 'silent' }), routes: [],
    auth: { authenticate: () => { throw new Error('no route needs it'); } },
  });
  const first = server(0);
  const port = await first.listen();
  try {
    await expect(server(port).listen()).rejects.toThrow(`127.0.0.1:${port} is in use by another process (another fwd?): stop it, or set FW_PORT to a free port`);
  } finally {
    await first.close();
  }
});
