// What keeps an instance serving the running version: the data plane applying each one, the readiness checks, and this node in the directory.
import { NodeAuth } from '../cluster/node-auth';
import { type Logger } from 'pino';
import type { Settings } from '../settings';
import { RedisStore } from '../store/redis/redis-store';
import { ClusterNode, LocalNode, defaultNodeId, type NodeDirectory } from '../cluster/nodes';
import type { CompiledConfig } from '../eval/compiled';
import { ConfigService } from '../session/service';
import type { AppContext } from '../api/context';
import { type DataPlane } from '../dataplane';
import { EventHub } from '../events/hub';

/**
 * Every running version this process serves is enforced on the data plane, the one at start
 * before the first request is answered. A commit on this instance has applied its version
 * before it becomes running (skipped here); versions loaded from elsewhere (a cluster's swaps)
 * are applied as they arrive. A refusal keeps the previous rules and shows in GET /api/status;
 * the daemon still serves, so that it can be fixed over the API.
 */
export async function enforceRunning<C>(config: ConfigService<C>, dataPlane: DataPlane, log: Logger): Promise<void> {
  let last: Promise<void> = Promise.resolve();
  config.onRunningChange((state) => {
    if (dataPlane.status().applied_version === state.meta.version) return;
    last = dataPlane.apply(state.doc, state.meta.version)
      .catch((e: unknown) => log.error({ err: e, version: state.meta.version }, 'data plane: the running version was not applied'));
  });
  await last;
}

/**
 * What /readyz needs of every daemon: the store answers, the running version is compiled, and
 * with a data plane the kernel holds it (a daemon that enforces nothing is not ready, whatever
 * it answers over the API). A commit applies its version before it is running: the kernel may
 * be one version ahead for a moment, which is ready.
 */
export function registerCoreReadiness(ctx: AppContext): void {
  ctx.readiness.register('store', () => ctx.store.ping());
  ctx.readiness.register('running', async () => {
    await ctx.config.current().compiled;
  });
  if (ctx.dataPlane.mode === 'none') return;
  ctx.readiness.register('dataplane', () => {
    const running = ctx.config.current().meta.version;
    const { applied_version: applied, error } = ctx.dataPlane.status();
    if (applied !== null && applied >= running) return;
    const holds = applied === null ? 'holds no version of ours' : `holds version ${applied}`;
    throw new Error(`the kernel ${holds}, not the running version ${running}: ${error ?? 'not applied yet'}`);
  });
}

/** Registers this instance: in the Redis cluster with a heartbeat, or as the one local node. */
export async function startNode(settings: Settings, port: number, redis: RedisStore | null, config: ConfigService<CompiledConfig>, dataPlane: DataPlane, events: EventHub, log: Logger, nodeAuth?: NodeAuth): Promise<NodeDirectory> {
  const id = settings.nodeId ?? defaultNodeId(port);
  if (nodeAuth) nodeAuth.selfId = id;
  const address = settings.advertise ?? `${settings.host}:${port}`;
  events.origin = id;
  const state = () => ({ version: config.current().meta.version, dataplane: dataPlane.status() });
  events.emit({ type: 'node', state: 'joined', node: id, address, version: config.current().meta.version });
  let served = config.current().meta.version;
  config.onRunningChange((s) => {
    if (s.meta.version === served) return;
    served = s.meta.version;
    events.emit({ type: 'node', state: 'version', node: id, version: served });
  });
  if (!redis || !nodeAuth) return new LocalNode(id, address, state);
  const node = new ClusterNode(redis, { id, address, heartbeatMs: 1000, syncTimeoutMs: settings.commitSyncTimeoutMs }, state, log, nodeAuth);
  // an instance that died says nothing: the first instance to see its heartbeat lapse does
  node.onPeerLost = (peer) => events.emit({ type: 'node', state: 'left', node: peer.id, address: peer.address });
  // a swap is reported at once, not at the next heartbeat: commits wait for it
  config.onRunningChange(() => { node.beat().catch(() => undefined); });
  // each heartbeat also catches up with a version whose message was missed
  await node.start(() => config.refreshRunning());
  return node;
}
