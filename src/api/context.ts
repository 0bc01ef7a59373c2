// What route modules are given: the wiring made once in main.ts.
import type { NodeAuth } from '../cluster/node-auth';
import type { StoreSecurity } from '../cluster/cluster-security';
import type { Logger } from 'pino';
import type { Settings } from '../settings';
import type { Store } from '../store/types';
import type { ConfigService } from '../session/service';
import type { CompiledConfig } from '../eval/compiled';
import type { DataPlane } from '../dataplane';
import type { AuditTrail } from './audit';
import type { Metrics } from './metrics';
import type { Readiness } from './readiness';
import type { DeepAnalysisResults } from '../workers/deep-analysis';
import type { NodeDirectory } from '../cluster/nodes';
import type { BatchPool } from '../workers/batch-pool';
import type { ParsePool } from '../workers/parse-pool';
import type { EventHub } from '../events/hub';
import type { EventStreams } from './event-streams';
import type { CommitConfirmation } from '../session/confirm';
import type { AccountService } from '../auth/accounts';
import type { SyslogForwarder } from '../syslog/forwarder';
import type { TrafficLog } from '../connections/traffic-log';
import type { DynamicSets } from '../dynamic/service';

export interface AppContext {
  settings: Settings;
  store: Store;
  log: Logger;
  config: ConfigService<CompiledConfig>;
  dataPlane: DataPlane;
  startedAt: number; // unix ms
  audit: AuditTrail;
  /** users, API tokens, login and logout, with their rules and audit entries */
  accounts: AccountService;
  metrics: Metrics;
  /** the checks of GET /readyz: modules with a readiness condition register one here */
  readiness: Readiness;
  /** the deep analysis of running versions (absent: only the commit's quick analysis) */
  analysis?: DeepAnalysisResults;
  /** The instances serving this firewall (this one alone on the embedded store); set at listen. */
  nodes: NodeDirectory;
  /** cluster mode: how this instance signs requests it sends on to other nodes (src/cluster/node-auth.ts) */
  nodeAuth?: NodeAuth;
  /** cluster mode: what the start found unsafe about Redis (src/cluster/cluster-security.ts) */
  storeSecurity?: StoreSecurity;
  /** the thread YAML bodies are parsed in */
  parsePool: ParsePool;
  /** threads for large batch evaluations of the running version (absent: all inline) */
  batchPool?: BatchPool;
  /** GET /api/events: every service reports its events here */
  events: EventHub;
  /** the open GET /api/events streams: their caps, and their credentials checked while open */
  eventStreams: EventStreams;
  /** FW_SYSLOG: audit entries (and traffic records) forwarded to syslog receivers */
  syslog: SyslogForwarder;
  /** commit confirmed: POST /api/config/confirm and the automatic revert */
  confirmation: CommitConfirmation;
  /** this node's traffic log, and the store of every node's (GET /api/logs/traffic) */
  traffic: TrafficLog;
  /** dynamic address sets' entries (issue 40); absent in contexts built without them */
  dynamic?: DynamicSets;
}
