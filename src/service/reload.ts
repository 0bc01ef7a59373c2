// SIGHUP (systemd's ExecReload): the daemon reads its settings file (FW_ENV_FILE, the unit's
// /etc/fwd/fwd.env) again itself and takes what a running process can change without a
// restart: the log level and the syslog forwarding. Nothing else is touched: the HTTP server,
// its connections and event streams, the store, the data plane. A changed setting that needs
// a restart (the port, the TLS certificate with this HTTP library, the store...) is named in
// the log, and named again at each reload until the daemon restarts; a file that does not
// give valid settings changes nothing at all.
import fs from 'node:fs';
import type { Logger } from 'pino';
import { loadSettings, type Settings } from '../settings';
import { readSyslogCa, type SyslogForwarder } from '../syslog/forwarder';
import { parseEnvFile } from './env-file';

/** The settings a reload applies. */
export const RELOADABLE = ['FW_LOG_LEVEL', 'FW_SYSLOG', 'FW_SYSLOG_BUFFER', 'FW_SYSLOG_CA', 'FW_SYSLOG_TLS_VERIFY'] as const;
const SYSLOG_NAMES: ReadonlySet<string> = new Set(RELOADABLE.filter((n) => n.startsWith('FW_SYSLOG')));

export interface ReloadOutcome {
  /** reloadable settings that changed and now apply */
  applied: string[];
  /** changed settings this process keeps until a restart (names only: values may be secrets) */
  needRestart: string[];
}

/** What a reload changes in the running daemon. */
export interface Reloadable {
  log: Logger;
  syslog: SyslogForwarder;
  /** the daemon's settings object: its reloadable fields are updated in place */
  settings: Settings;
}

function readFile(file: string): Record<string, string> {
  try {
    return parseEnvFile(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

const changedNames = (a: NodeJS.ProcessEnv, b: NodeJS.ProcessEnv) => [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();

export class SettingsReloader {
  /** the environment without what the file gave at start (the unit's Environment=, the secrets file) */
  private readonly base: NodeJS.ProcessEnv;
  /** the environment the running settings come from */
  private applied: NodeJS.ProcessEnv;

  constructor(private readonly file: string, private readonly target: Reloadable, env: NodeJS.ProcessEnv = process.env) {
    this.applied = { ...env };
    this.base = { ...env };
    let fromFile: Record<string, string> = {};
    try {
      fromFile = readFile(file);
    } catch {
      // unreadable now: the first reload says why
    }
    // a line removed from the file later goes back to the value from elsewhere, or to none
    for (const [k, v] of Object.entries(fromFile)) if (this.base[k] === v) delete this.base[k];
  }

  /** Reads the file and applies it; throws, having changed nothing, when it gives invalid settings. */
  async reload(): Promise<ReloadOutcome> {
    const next = { ...this.base, ...readFile(this.file) };
    const settings = loadSettings(next);
    const { log, syslog } = this.target;
    if (log.levels.values[settings.logLevel] === undefined && settings.logLevel !== 'silent') {
      throw new Error(`FW_LOG_LEVEL must be one of ${Object.keys(log.levels.values).join(', ')} or silent, got "${settings.logLevel}"`);
    }
    const changed = changedNames(this.applied, next);
    const applied = changed.filter((n) => (RELOADABLE as readonly string[]).includes(n));
    if (applied.some((n) => SYSLOG_NAMES.has(n))) {
      await syslog.reconfigure({ targets: settings.syslog, buffer: settings.syslogBuffer, ca: readSyslogCa(settings.syslogCa), verify: settings.syslogTlsVerify });
    }
    log.level = settings.logLevel;
    Object.assign(this.target.settings, {
      logLevel: settings.logLevel, syslog: settings.syslog, syslogBuffer: settings.syslogBuffer,
      syslogCa: settings.syslogCa, syslogTlsVerify: settings.syslogTlsVerify,
    });
    for (const n of applied) {
      if (next[n] === undefined) delete this.applied[n];
      else this.applied[n] = next[n];
    }
    return { applied, needRestart: changed.filter((n) => !applied.includes(n)) };
  }
}
