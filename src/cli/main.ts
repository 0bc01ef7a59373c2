#!/usr/bin/env node
// fwctl, the command-line client of fwd: a client of the HTTP API like any other (it imports
// only the daemon's types). `fwctl help` lists the commands; docs/automation.md has the rest.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError, EXIT } from './api';
import { clientFrom } from './profile';
import { login } from './commands/login';
import { status } from './commands/status';
import { trace, type TraceArgs } from './commands/trace';
import { watch } from './commands/watch';
import { leases } from './commands/leases';
import { endSessions, sessions, SESSION_FILTERS, type SessionFilterArgs } from './commands/sessions';
import { apply, confirm, exportConfig, plan } from './commands/config-file';

const HELP = `fwctl: the command-line client of the fwd firewall daemon

  fwctl login URL --user NAME      log in (password: prompt or FWCTL_PASSWORD; or FWCTL_TOKEN)
  fwctl status                     running version, session, pending confirmation, data plane
  fwctl export [--candidate] [--format json|yaml] [-o FILE]
  fwctl plan -f FILE [--merge]     the changes FILE makes to running (exit 0: none, 2: some)
  fwctl apply -f FILE [--merge] [--confirm SECONDS] [--yes] [--description TEXT]
  fwctl confirm                    keep a commit made with --confirm
  fwctl trace --src IP --dst IP --proto P [--dport N] [--sport N] [--icmp-type N] [--icmp-code N]
              [--in IF] [--candidate]
  fwctl watch [--types commit,confirm,...] [--since ID] [--count N]
  fwctl leases                     the DHCP leases handed out, per pool
  fwctl sessions [FILTERS] [--limit N]   live connections (FILTERS: --address IP|PREFIX --port N
                                   --protocol P --zone Z --policy ID --state S --id ID
                                   --src IP --dst IP --sport N --dport N)
  fwctl end-sessions FILTERS       end the connections they select (operator or admin)

Every command: --json (output for scripts), --url URL (else FWCTL_URL, else the login's).
Exit codes: 0 ok, 1 refused or failed, 2 plan found changes, 3 not logged in / token refused,
4 conflict (session held by another user, nothing to confirm), 5 daemon unreachable,
10 apply answered no, 64 bad command line.
`;

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
  login: { user: { type: 'string', short: 'u' } },
  status: {},
  export: { candidate: { type: 'boolean', default: false }, format: { type: 'string' }, output: { type: 'string', short: 'o' } },
  plan: { file: { type: 'string', short: 'f' }, merge: { type: 'boolean', default: false } },
  apply: {
    file: { type: 'string', short: 'f' }, merge: { type: 'boolean', default: false }, confirm: { type: 'string' },
    yes: { type: 'boolean', short: 'y', default: false }, description: { type: 'string', short: 'm' },
  },
  confirm: {},
  trace: {
    src: { type: 'string' }, dst: { type: 'string' }, proto: { type: 'string' }, dport: { type: 'string' }, sport: { type: 'string' },
    in: { type: 'string' }, 'src-zone': { type: 'string' }, 'dst-zone': { type: 'string' }, candidate: { type: 'boolean', default: false },
    'icmp-type': { type: 'string' }, 'icmp-code': { type: 'string' },
  },
  watch: { types: { type: 'string' }, since: { type: 'string' }, count: { type: 'string' } },
  leases: {},
  sessions: { ...filterOptions(), limit: { type: 'string' } },
  'end-sessions': filterOptions(),
} as const satisfies Record<string, ParseArgsConfig['options']>;

type Command = keyof typeof OPTIONS;

function parse(command: Command, argv: string[]) {
  try {
    return parseArgs({ args: argv, options: { ...common, ...OPTIONS[command] }, allowPositionals: command === 'login', strict: true });
  } catch (e) {
    throw new CliError(`fwctl ${command}: ${(e as Error).message}`, EXIT.usage);
  }
}

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(HELP);
    return command ? EXIT.ok : EXIT.usage;
  }
  if (!(command in OPTIONS)) throw new CliError(`fwctl: unknown command "${command}" (fwctl help)`, EXIT.usage);
  const { values: v, positionals } = parse(command as Command, rest);
  const o = v as Record<string, string | boolean | undefined> & { json: boolean; url?: string; help: boolean };
  if (o.help) {
    process.stdout.write(HELP);
    return EXIT.ok;
  }
  if (command === 'login') {
    const url = positionals[0] ?? o.url;
    if (!url) throw new CliError('fwctl login URL --user NAME', EXIT.usage);
    return login({ url, user: o.user as string | undefined, json: o.json });
  }
  const api = clientFrom(o.url);
  switch (command as Exclude<Command, 'login'>) {
    case 'status': return status(api, o.json);
    case 'export': return exportConfig(api, { candidate: o.candidate === true, format: o.format as string | undefined, output: o.output as string | undefined });
    case 'plan': return plan(api, { file: o.file as string | undefined, merge: o.merge === true, json: o.json });
    case 'apply': return apply(api, {
      file: o.file as string | undefined, merge: o.merge === true, confirm: o.confirm as string | undefined, yes: o.yes === true,
      description: o.description as string | undefined, json: o.json,
    });
    case 'confirm': return confirm(api, o.json);
    case 'trace': return trace(api, o as unknown as TraceArgs);
    case 'leases': return leases(api, o.json);
    case 'sessions': return sessions(api, o as unknown as SessionFilterArgs & { limit?: string; json: boolean });
    case 'end-sessions': return endSessions(api, o as unknown as SessionFilterArgs & { json: boolean });
    case 'watch': return watch(api, { types: o.types as string | undefined, since: o.since as string | undefined, count: o.count as string | undefined, json: o.json });
  }
}

run(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (e: unknown) => {
    if (e instanceof CliError) {
      process.stderr.write(`fwctl: ${e.message}\n`);
      process.exitCode = e.exitCode;
    } else {
      process.stderr.write(`fwctl: ${(e as Error).stack ?? String(e)}\n`);
      process.exitCode = EXIT.failed;
    }
  },
);
