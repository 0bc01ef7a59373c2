// What the embedded store (embedded.ts) is opened with.
import type { Logger } from './recovery';

export interface EmbeddedStoreOptions {
  dir: string;
  logger?: Logger;
  /** Version documents kept in memory besides the running one (default 8). */
  versionCacheSize?: number;
  /** FW_VERSIONS_KEEP: committed versions kept, the newest (default 100; 0: all). */
  versionsKeep?: number;
  /** Deltas after which a keyframe is written (default version-deltas.ts KEYFRAME_EVERY). */
  keyframeEvery?: number;
  /** FW_AUDIT_KEEP: audit entries kept, the newest, failed logins apart (default 100,000; 0: all). */
  auditKeep?: number;
  /** FW_AUDIT_LOGIN_FAILURES_KEEP: failed-login audit entries kept, the newest (default 10,000; 0: all). */
  auditLoginFailuresKeep?: number;
  /** Told once when a write fails and the store stops serving (e.g. to exit for a restart). */
  onFailure?: (err: Error) => void;
}
