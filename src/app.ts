// Wiring: store, first admin, JWT secret, session service, routes and the HTTP server.
// main.ts runs it from the environment; tests start it in-process on a free port.
import { randomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { Settings } from './settings';
import type { Store } from './store/types';
import { EmbeddedStore } from './store/embedded';
import { emptyDoc, serializeDoc } from './config/document';
import { commitChecks } from './config/commit-checks';
import { ConfigService } from './session/service';
import { TokenService } from './auth/tokens';
import { LoginLimiter } from './auth/login-limiter';
import { hashPassword, randomPassword } from './auth/passwords';
import { HttpServer } from './api/server';
import type { AppContext } from './api/context';
import { allRoutes } from './api/routes';
import { createCompiler, type CommitCompiler } from './workers/commit-compiler';
import { Metrics } from './api/metrics';
import { AuditTrail } from './api/audit';
import { Readiness } from './api/readiness';

export interface Daemon {
  port: number;
  ctx: AppContext;
  close(): Promise<void>;
}

export interface DaemonOptions {
  logger?: Logger;
  /** where the generated first admin password is printed (standard output by default) */
  announce?: (line: string) => void;
}

/** First start with no users: FW_ADMIN_USER with FW_ADMIN_PASSWORD, or a printed random one. */
async function ensureAdmin(store: Store, settings: Settings, announce: (line: string) => void): Promise<void> {
  if ((await store.listUsers()).length > 0) return;
  const password = settings.adminPassword ?? randomPassword();
  await store.putUser({ username: settings.adminUser, hash: await hashPassword(password), createdAt: Date.now() });
  if (!settings.adminPassword) announce(`initial admin account "${settings.adminUser}" with password: ${password}`);
}

/** What /readyz needs of every daemon: the store answers, and the running version is compiled. */
function registerCoreReadiness(ctx: AppContext): void {
  ctx.readiness.register('store', () => ctx.store.ping());
  ctx.readiness.register('running', async () => {
    await ctx.config.current().compiled;
  });
}

export async function startDaemon(settings: Settings, opts: DaemonOptions = {}): Promise<Daemon> {
  // buffered, asynchronous log writes: one write syscall per ~4 KiB instead of per line
  const dest = opts.logger ? null : pino.destination({ sync: false, minLength: 4096 });
  const log = opts.logger ?? pino({ level: settings.logLevel, base: { pid: process.pid } }, dest!);
  const flushLog = () => dest?.flushSync();
  let sessionInfo = async () => ({ active: false, changes: 0 }); // the session gauges, once the service is made
  const metrics = new Metrics(() => sessionInfo());
  const store: Store = metrics.timedStore(new EmbeddedStore({
    dir: settings.dataDir,
    logger: log,
    // a failed disk write leaves memory ahead of the disk: stop, and let the supervisor
    // restart us on what is durable (crash-only, like after kill -9)
    onFailure: (err: unknown) => {
      log.fatal({ err }, 'store write failed; exiting');
      flushLog();
      process.exit(1);
    },
  }));
  await store.open(() => serializeDoc(emptyDoc(settings.interfaces)));
  let compiler: CommitCompiler | null = null;
  try {
    await ensureAdmin(store, settings, opts.announce ?? ((l) => process.stdout.write(`${l}\n`)));
    const secret = settings.jwtSecret ?? (await store.getOrCreateSecret(() => randomBytes(48).toString('base64')));
    compiler = metrics.timedCompiler(createCompiler());
    const config = new ConfigService(store, settings, log, compiler, commitChecks);
    sessionInfo = () => config.info();
    await config.init();
    const ctx: AppContext = {
      settings, store, log, config, startedAt: Date.now(), audit: new AuditTrail(store), metrics, readiness: new Readiness(),
    };
    registerCoreReadiness(ctx);
    const tokens = new TokenService(secret, settings.tokenTtlSec, store);
    const limiter = new LoginLimiter(settings.loginMaxFailures, settings.loginWindowSec);
    const server = new HttpServer({
      host: settings.host, port: settings.port, maxBodyBytes: settings.maxBodyBytes, logger: log,
      routes: allRoutes(ctx, tokens, limiter), auth: tokens, requests: metrics.requests,
    });
    metrics.inFlight = () => server.requestsInFlight;
    const port = await server.listen();
    const sweep = setInterval(() => config.expireIdle().catch((e) => log.error({ err: e }, 'session sweep failed')), 1000);
    sweep.unref();
    log.info({ port, host: settings.host, store: store.kind, dataDir: settings.dataDir }, 'listening');
    flushLog(); // supervisors and tests wait for this line
    const activeCompiler = compiler;
    return {
      port,
      ctx,
      close: async () => {
        clearInterval(sweep);
        await server.close();
        await activeCompiler.close();
        await store.close();
        log.info('stopped');
        flushLog();
      },
    };
  } catch (e) {
    await compiler?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw e;
  }
}
