// Issue 38: the shipped compose files run Redis with a password from .env, and every client of
// it (the instances, the worker, the replica and the sentinels) presents it. Parsed as YAML
// (docker compose is not on every test machine; `docker compose config` was checked by hand
// where it is, docs/cluster.md).
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '../../..');
const PASSWORD = '${REDIS_PASSWORD:?set REDIS_PASSWORD}';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function compose(name: string): any {
  return parse(fs.readFileSync(path.join(ROOT, name), 'utf8'), { merge: true });
}

test('docker-compose.yml: Redis requires the password, every instance and the worker have it', () => {
  const c = compose('docker-compose.yml');
  const cmd: string[] = c.services.redis.command;
  expect(cmd[cmd.indexOf('--requirepass') + 1]).toBe(PASSWORD);
  for (const s of ['api1', 'api2', 'worker']) expect(c.services[s].environment.REDIS_PASSWORD).toBe(PASSWORD);
});

test('docker-compose.ha.yml: the replica and the sentinels authenticate to the primary, and require the password themselves', () => {
  const c = compose('docker-compose.ha.yml');
  const replica: string[] = c.services['redis-replica'].command;
  expect(replica[replica.indexOf('--requirepass') + 1]).toBe(PASSWORD);
  expect(replica[replica.indexOf('--masterauth') + 1]).toBe(PASSWORD);
  for (const s of ['sentinel1', 'sentinel2', 'sentinel3']) expect(c.services[s].command.join('\n')).toContain(`sentinel auth-pass fwd ${PASSWORD}`);
  const base: string[] = compose('docker-compose.yml').services.redis.command;
  expect(base[base.indexOf('--masterauth') + 1]).toBe(PASSWORD); // the old primary rejoins as a replica
});
