// Whether this daemon can have its listening port to itself (issue 38 item 4). uWebSockets.js
// listens with SO_REUSEPORT by default, so a second daemon on a port in use would share it and
// get some of the first one's connections; the server listens exclusively instead, and the
// start asks first, before the store or the data plane is touched, so that a daemon that
// cannot listen changes nothing (a second daemon with FW_DATAPLANE=linux would otherwise
// enforce its own configuration on the kernel before it failed).
import net from 'node:net';

/** What stops a listener on host:port, in words for the operator; null when the port is free. */
export function portProblem(host: string, port: number): Promise<string | null> {
  if (port === 0) return Promise.resolve(null); // any free port
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => resolve(describe(host, port, e.code)));
    // exclusive: no handle shared with a cluster primary; a plain bind, as the server's is
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}

function describe(host: string, port: number, code: string | undefined): string {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (code) {
    case 'EADDRINUSE': return `${where} is in use by another process (another fwd?): stop it, or set FW_PORT to a free port`;
    case 'EACCES': return `cannot listen on ${where}: permission denied (a port under 1024 needs root or CAP_NET_BIND_SERVICE)`;
    case 'EADDRNOTAVAIL': return `cannot listen on ${where}: ${host} is not an address of this host (FW_HOST)`;
    default: return `cannot listen on ${where}: ${code ?? 'unknown error'}`;
  }
}

/** Refuses the start when the port cannot be had (the message above as the error). */
export async function ensurePortFree(host: string, port: number): Promise<void> {
  const problem = await portProblem(host, port);
  if (problem !== null) throw new Error(problem);
}
