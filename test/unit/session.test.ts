// The commit pipeline's failure paths that HTTP cannot provoke on demand: a compile slower
// than the commit timeout (504) and a full compile queue (503). Either way the running
// version is untouched and the session stays open, so a later commit still works.
import pino from 'pino';
import { emptyDoc, serializeDoc } from '../../src/config/document';
import type { ConfigDoc } from '../../src/config/types';
import { FwError } from '../../src/errors';
import { ConfigService, type Compiler } from '../../src/session/service';
import { EmbeddedStore } from '../../src/store/embedded';
import { tempDir } from '../helpers/daemon';

type Mode = 'ok' | 'slow' | 'full';

async function setup(): Promise<{ svc: ConfigService<string>; store: EmbeddedStore; mode: { value: Mode } }> {
  const store = new EmbeddedStore({ dir: tempDir() });
  await store.open(() => serializeDoc(emptyDoc(['eth0'])));
  const mode = { value: 'ok' as Mode };
  const compiler: Compiler<string> = {
    compile: (doc: ConfigDoc) => {
      if (mode.value === 'slow') return new Promise((resolve) => setTimeout(() => resolve({ compiled: 'late', warnings: [] }), 500));
      if (mode.value === 'full') return Promise.reject(new FwError('ERR_SYS_4002', 'compile queue is full'));
      return Promise.resolve({ compiled: `${doc.addresses.size} addresses`, warnings: [] });
    },
  };
  const svc = new ConfigService(store, { sessionTimeoutSec: 60, commitTimeoutMs: 100 }, pino({ level: 'silent' }), compiler, () => []);
  await svc.init();
  return { svc, store, mode };
}

test.each([
  ['slow', 'ERR_SYS_4004', 504],
  ['full', 'ERR_SYS_4002', 503],
] as const)('a %s compile fails the commit with %s; nothing changes and the session stays open', async (m, code, status) => {
  const { svc, store, mode } = await setup();
  try {
    await svc.begin('admin');
    await svc.change('admin', { op: 'create', kind: 'address', body: { name: 'a', ips: ['10.0.0.0/8'] } });
    mode.value = m;
    await expect(svc.commit('admin', '')).rejects.toMatchObject({ code, status });
    expect(svc.current().meta.version).toBe(0);
    expect((await store.runningVersion()).version).toBe(0);
    expect((await svc.info()).active).toBe(true);
    expect((await svc.candidate()).doc.addresses.has('a')).toBe(true);
    mode.value = 'ok';
    expect(await svc.commit('admin', 'second try')).toEqual({ version: 1, warnings: [], unconfirmed: [] });
    expect((await svc.current().compiled).compiled).toBe('1 addresses');
  } finally {
    await store.close();
  }
});

test('a change during a commit is refused with 409 ERR_SYS_3002 and is not recorded', async () => {
  const { svc, store, mode } = await setup();
  try {
    await svc.begin('admin');
    mode.value = 'slow';
    const commit = svc.commit('admin', '');
    await expect(svc.change('admin', { op: 'create', kind: 'address', body: { name: 'b', ips: ['10.0.0.0/8'] } })).rejects.toMatchObject({ code: 'ERR_SYS_3002' });
    await expect(commit).rejects.toMatchObject({ code: 'ERR_SYS_4004' });
    expect((await store.getSession())!.journal).toHaveLength(0);
  } finally {
    await store.close();
  }
});
