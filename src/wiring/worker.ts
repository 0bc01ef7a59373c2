// A commit worker with no HTTP front (npm run worker): runs the cluster's commit jobs.
import os from 'node:os';
import pino, { type Logger } from 'pino';
import { journalLogOptions } from '../journal-format';
import type { Settings } from '../settings';
import { emptyDoc, serializeDoc } from '../config/document';
import { commitChecks } from '../config/commit-checks';
import { ConfigService } from '../session/service';
import { createCompiler } from '../workers/commit-compiler';
import { forwardAudits } from '../syslog/records';
import { redisStore, wireCluster, closeClusterParts } from './store';
import { syslogForwarder, eventHub, warnMallocEnv } from './services';

/**
 * A commit worker with no HTTP front (`npm run worker`): runs the cluster's commit jobs.
 */
export async function startWorker(settings: Settings, logger?: Logger): Promise<{ close(): Promise<void> }> {
  if (!settings.redis) throw new Error('a worker needs REDIS_URL or REDIS_SENTINELS');
  const log = logger ?? pino({ level: settings.logLevel, base: { pid: process.pid, role: 'worker' }, ...journalLogOptions() });
  const syslog = syslogForwarder(settings, log);
  // a worker records audit entries too (a commit that confirms another): they are forwarded alike
  const store = forwardAudits(redisStore(settings, log), syslog);
  await store.open(() => serializeDoc(emptyDoc(settings.interfaces)));
  const compiler = createCompiler();
  try {
    const config = new ConfigService(store, settings, log, compiler, commitChecks);
    // a worker makes commits: it reports their events too
    const events = eventHub(settings, store, log);
    events.origin = `worker-${os.hostname()}-${process.pid}`;
    config.events = events.emit;
    await config.init();
    const parts = wireCluster({ ...settings, worker: true }, store, config, null, log);
    await Promise.all([parts.queue.ready(), parts.worker!.ready()]);
    log.info({ cluster: settings.clusterName }, 'commit worker ready');
    warnMallocEnv(log);
    return {
      close: async () => {
        events.close();
        await closeClusterParts(parts, null, store, log);
        await compiler.close();
        await store.close();
        await syslog.close();
      },
    };
  } catch (e) {
    await compiler.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    await syslog.close();
    throw e;
  }
}
