// The baseline of the hot-path benchmark (bench/http.ts): a bare uWebSockets.js server that
// answers each path with fixed bytes (the daemon's own answer to that path, captured by the
// benchmark), so that the comparison measures what the daemon adds per request, not the size
// of an answer. Usage: node dist/bench/raw-uws.js FILE [CERT KEY] (FILE: a JSON object, path
// -> body; with CERT and KEY an SSLApp with the daemon's TLS options, the TLS baseline).
import fs from 'node:fs';
import uWS from 'uWebSockets.js';
import { TLS12_CIPHERS } from '../src/api/tls';

const [file, cert, key] = process.argv.slice(2);
const bodies = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
const app = cert ? uWS.SSLApp({ cert_file_name: cert, key_file_name: key, ssl_ciphers: TLS12_CIPHERS }) : uWS.App();
app.any('/*', (res, req) => {
  const body = bodies[req.getUrl()] ?? '{"hello":"world"}';
  res.cork(() => {
    res.writeStatus('200 OK');
    res.writeHeader('Content-Type', 'application/json');
    res.end(body);
  });
});
app.listen('127.0.0.1', 0, (sock) => {
  if (!sock) process.exit(1);
  process.stdout.write(`${JSON.stringify({ port: uWS.us_socket_local_port(sock) })}\n`);
});
