#!/usr/bin/env node
// fwctl, the command-line client of fwd: a client of the HTTP API like any other (it imports
// only the daemon's types). `fwctl help` lists the commands; docs/automation.md has the rest.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError, EXIT } from './api';
import { commandHelp, generalHelp } from './help';
import { clientFrom } from './profile';
import { login } from './commands/login';
import { status } from './commands/status';
import { trace, type TraceArgs } from './commands/trace';
import { watch } from './commands/watch';
import { leases } from './commands/leases';
import { ha } from './commands/ha';
import { endSessions, sessions, SESSION_FILTERS, type SessionFilterArgs } from './commands/sessions';
import { apply, confirm, exportConfig, plan } from './commands/config-file';
import { impact } from './commands/impact';
import { hits } from './commands/hits';
import { logs, LOG_FILTERS, type LogArgs } from './commands/logs';
import { discard } from './commands/discard';
import { dynamicSet } from './commands/dynamic-set';
import { schedules } from './commands/schedules';
import { lists } from './commands/lists';
import { fqdn } from './commands/fqdn';

const common = {
  json: { type: 'boolean', default: false },
  url: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** --address, --port ...: the session filters as string options. */
function filterOptions(): Record<(typeof SESSION_FILTERS)[number], { type: 'string' }> {
  return Object.fromEntries(SESSION_FILTERS.map((f) => [f, { type: 'string' }])) as Record<(typeof SESSION_FILTERS)[number], { type: 'string' }>;
}

const OPTIONS = {
  login: { user: { type: 'string', short: 'u' }, 'password-stdin': { type: 'boolean', default: false } },
  status: {},
  export: { candidate: { type: 'boolean', default: false }, format: { type: 'string' }, output: { type: 'string', short: 'o' } },
  plan: { file: { type: 'string', short: 'f' }, merge: { type: 'boolean', default: false } },
  apply: {
    file: { type: 'string', short: 'f' }, merge: { type: 'boolean', default: false }, confirm: { type: 'string' },
    yes: { type: 'boolean', short: 'y', default: false }, description: { type: 'string', short: 'm' },
  },
  confirm: {},
  discard: { force: { type: 'boolean', default: false } },
  trace: {
    src: { type: 'string' }, dst: { type: 'string' }, proto: { type: 'string' }, dport: { type: 'string' }, sport: { type: 'string' },
    in: { type: 'string' }, 'src-zone': { type: 'string' }, 'dst-zone': { type: 'string' }, candidate: { type: 'boolean', default: false },
    'icmp-type': { type: 'string' }, 'icmp-code': { type: 'string' }, time: { type: 'string' },
  },
  watch: { types: { type: 'string' }, since: { type: 'string' }, count: { type: 'string' } },
  leases: {},
  ha: { node: { type: 'string' } },
  'dynamic-set': { ttl: { type: 'string' } },
  schedules: {},
  lists: {},
  fqdn: {},
  sessions: { ...filterOptions(), limit: { type: 'string' } },
  'end-sessions': filterOptions(),
  impact: {},
  hits: { unused: { type: 'string' } },
  logs: {
    ...Object.fromEntries(LOG_FILTERS.map((f) => [f, { type: 'string' }])) as Record<(typeof LOG_FILTERS)[number], { type: 'string' }>,
    limit: { type: 'string' }, all: { type: 'boolean', default: false }, follow: { type: 'boolean', short: 'f', default: false }, count: { type: 'string' },
  },
} as const satisfies Record<string, ParseArgsConfig['options']>;

type Command = keyof typeof OPTIONS;

function parse(command: Command, argv: string[]) {
  try {
    return parseArgs({ args: argv, options: { ...common, ...OPTIONS[command] }, allowPositionals: command === 'login' || command === 'ha' || command === 'dynamic-set' || command === 'lists', strict: true });
  } catch (e) {
    throw new CliError(`${(e as Error).message} (fwctl ${command} --help)`, EXIT.usage);
  }
}

/** fwctl's version: the package's (dist/src/cli/main.js is three folders below package.json). */
function version(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as { version: string };
  return `fwctl ${pkg.version}\n`;
}

function isCommand(name: string | undefined): name is Command {
  return name !== undefined && Object.prototype.hasOwnProperty.call(OPTIONS, name);
}

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-V') return print(version());
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    if (isCommand(rest[0])) return print(commandHelp(rest[0]));
    if (rest[0] !== undefined) throw new CliError(`unknown command "${rest[0]}" (fwctl help)`, EXIT.usage);
    process.stdout.write(generalHelp());
    return command ? EXIT.ok : EXIT.usage;
  }
  if (!isCommand(command)) throw new CliError(`unknown command "${command}" (fwctl help)`, EXIT.usage);
  const { values: v, positionals } = parse(command, rest);
  const o = v as Record<string, string | boolean | undefined> & { json: boolean; url?: string; help: boolean };
  if (o.help) return print(commandHelp(command));
  if (command === 'login') {
    const url = positionals[0] ?? o.url;
    if (!url) throw new CliError('a URL is required (fwctl login --help)', EXIT.usage);
    return login({ url, user: o.user as string | undefined, passwordStdin: o['password-stdin'] === true, json: o.json });
  }
  const api = clientFrom(o.url);
  switch (command) {
    case 'status': return status(api, o.json);
    case 'export': return exportConfig(api, { candidate: o.candidate === true, format: o.format as string | undefined, output: o.output as string | undefined, json: o.json });
    case 'plan': return plan(api, { file: o.file as string | undefined, merge: o.merge === true, json: o.json });
    case 'apply': return apply(api, {
      file: o.file as string | undefined, merge: o.merge === true, confirm: o.confirm as string | undefined, yes: o.yes === true,
      description: o.description as string | undefined, json: o.json,
    });
    case 'confirm': return confirm(api, o.json);
    case 'discard': return discard(api, { force: o.force === true, json: o.json });
    case 'trace': return trace(api, o as unknown as TraceArgs);
    case 'leases': return leases(api, o.json);
    case 'ha': return ha(api, { action: positionals[0], node: o.node as string | undefined, json: o.json });
    case 'lists': return lists(api, positionals[0], o.json);
    case 'fqdn': return fqdn(api, o.json);
    case 'dynamic-set': return dynamicSet(api, { action: positionals[0], name: positionals[1], ips: positionals.slice(2), ttl: o.ttl as string | undefined, json: o.json });
    case 'schedules': return schedules(api, o.json);
    case 'sessions': return sessions(api, o as unknown as SessionFilterArgs & { limit?: string; json: boolean });
    case 'end-sessions': return endSessions(api, o as unknown as SessionFilterArgs & { json: boolean });
    case 'impact': return impact(api, o.json);
    case 'hits': return hits(api, { unused: o.unused as string | undefined, json: o.json });
    case 'logs': return logs(api, o as unknown as LogArgs);
    case 'watch': return watch(api, { types: o.types as string | undefined, since: o.since as string | undefined, count: o.count as string | undefined, json: o.json });
  }
}

function print(text: string): number {
  process.stdout.write(text);
  return EXIT.ok;
}

/** A failure as the user asked for it: `fwctl COMMAND: message` on stderr, or JSON on stdout (--json). */
function report(e: unknown, argv: string[]): number {
  const err = e instanceof CliError ? e : new CliError((e as Error).stack ?? String(e), EXIT.failed);
  if (argv.includes('--json')) process.stdout.write(JSON.stringify(err) + '\n');
  else process.stderr.write(`fwctl${isCommand(argv[0]) ? ` ${argv[0]}` : ''}: ${err.message}\n`);
  return err.exitCode;
}

const args = process.argv.slice(2);
run(args).then(
  (code) => { process.exitCode = code; },
  (e: unknown) => { process.exitCode = report(e, args); },
);
