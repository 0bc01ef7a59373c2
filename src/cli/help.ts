// fwctl's help texts: one line per command in `fwctl help`, and the whole usage of one command
// in `fwctl COMMAND --help` (or `fwctl help COMMAND`).

export interface CommandHelp {
  usage: string;
  summary: string;
  /** the options, one per line: "--name VALUE   what it does" */
  options?: string[];
}

export const COMMAND_HELP: Readonly<Record<string, CommandHelp>> = {
  login: {
    usage: 'fwctl login URL --user NAME [--password-stdin]',
    summary: 'log in and keep the token (password: prompt, standard input, FWCTL_PASSWORD; or FWCTL_TOKEN)',
    options: [
      '--user, -u NAME      the account (else FWCTL_USER)',
      '--password-stdin     read the password from the first line of standard input (echo "$PW" | fwctl login ...)',
    ],
  },
  status: { usage: 'fwctl status', summary: 'running version, session, pending confirmation, data plane' },
  export: {
    usage: 'fwctl export [--candidate] [--format json|yaml] [-o FILE]',
    summary: 'the whole configuration as a document',
    options: ['--candidate          the session\'s candidate instead of running', '--format json|yaml   (json)', '-o, --output FILE    write FILE instead of standard output'],
  },
  plan: {
    usage: 'fwctl plan -f FILE [--merge]',
    summary: 'what FILE changes against running, field by field (exit 0: nothing, 2: changes); read-only, no session',
    options: ['-f, --file FILE      .yaml/.yml: YAML, else JSON; -: standard input', '--merge              add and update only (else FILE replaces everything)'],
  },
  apply: {
    usage: 'fwctl apply -f FILE [--merge] [--confirm SECONDS] [--yes] [-m TEXT]',
    summary: 'load FILE into a session, show the changes, ask, validate and commit',
    options: [
      '-f, --file FILE      .yaml/.yml: YAML, else JSON; -: standard input', '--merge              add and update only',
      '--confirm SECONDS    commit confirmed: reverted unless fwctl confirm comes in time', '-y, --yes            do not ask',
      '-m, --description T  the commit\'s description',
    ],
  },
  confirm: { usage: 'fwctl confirm', summary: 'keep a commit made with --confirm' },
  discard: {
    usage: 'fwctl discard [--force]',
    summary: 'end your configuration session and drop its candidate (exit 4: none open)',
    options: ['--force              end another user\'s session (admin)'],
  },
  trace: {
    usage: 'fwctl trace --src IP --dst IP --proto tcp|udp|sctp|icmp|icmpv6|N [--dport N] [--sport N] [--icmp-type N] [--icmp-code N] [--in IF] [--src-zone Z] [--dst-zone Z] [--time ISO] [--candidate]',
    summary: 'one packet through the configuration: zones, route, NAT, policy, verdict',
    options: ['--time ISO           judge it at this instant (ISO 8601 with an offset): schedules and expiry (default now)'],
  },
  watch: {
    usage: 'fwctl watch [--types commit,confirm,...] [--since ID] [--count N]',
    summary: 'the daemon\'s events as they happen',
  },
  leases: { usage: 'fwctl leases', summary: 'the DHCP leases handed out, per pool' },
  ha: {
    usage: 'fwctl ha [status|failover|resume] [--node ID]',
    summary: 'the HA pair: this node\'s state, virtual addresses and sync link; failover steps the node down (operator or admin), resume lets it serve again',
  },
  lists: { usage: 'fwctl lists [NAME]', summary: 'the external lists (addresses with a url): entries in force, entries cut, last fetch, last error' },
  'dynamic-set': {
    usage: 'fwctl dynamic-set list|add|del NAME [IP...] [--ttl SECONDS]',
    summary: 'the entries of a running dynamic address set, without a session (a feeder token may do this only)',
    options: ['--ttl SECONDS        add: how long the entries live (0: until deleted; else the set\'s default-ttl)'],
  },
  schedules: {
    usage: 'fwctl schedules',
    summary: 'the running schedules, whether each is on now, and the policies off now by schedule or expiry',
  },
  fqdn: {
    usage: 'fwctl fqdn',
    summary: 'the FQDN addresses of the running version: the prefixes their names resolve to now, when, and the last error',
  },
  sessions: {
    usage: 'fwctl sessions [FILTERS] [--node ID] [--limit N]',
    summary: 'live connections',
    options: ['FILTERS: --address IP|PREFIX --port N --protocol P --zone Z --policy ID --state S --id ID --src IP --dst IP --sport N --dport N'],
  },
  'end-sessions': { usage: 'fwctl end-sessions FILTERS', summary: 'end the connections they select (operator or admin)', options: ['FILTERS: as fwctl sessions'] },
  impact: {
    usage: 'fwctl impact',
    summary: 'what committing the session\'s candidate would do to live connections (exit 0: none cut, 2: some cut)',
  },
  hits: {
    usage: 'fwctl hits [--unused DAYS]',
    summary: 'hits, bytes, first and last hit of every running policy and NAT rule',
    options: ['--unused DAYS        only the rules with no hit for DAYS days (1-3650)'],
  },
  logs: {
    usage: 'fwctl logs [FILTERS] [--node ID] [--limit N | --all] [--follow [--count N]]',
    summary: 'the traffic log, newest first (default 50 records), or followed live',
    options: ['FILTERS: --address IP|PREFIX --port N --protocol P --policy ID|default --action allow|deny --zone Z --since TIME --until TIME (ISO 8601)'],
  },
};

const COMMON = `Every command: --json (every outcome as JSON on standard output, errors included),
--url URL (else FWCTL_URL, else the login's), --help.`;

const EXITS = `Exit codes: 0 ok, 1 refused or failed, 2 plan found changes (impact: connections cut), 3 not logged in / token refused,
4 conflict (session held by another user, nothing to confirm), 5 daemon unreachable,
10 apply answered no, 64 bad command line.`;

/** `fwctl help`: every command on a line. */
export function generalHelp(): string {
  const rows = Object.values(COMMAND_HELP).map((c) => `  ${c.usage}\n      ${c.summary}`);
  return `fwctl: the command-line client of the fwd firewall daemon\n\n${rows.join('\n')}\n\n  fwctl --version, fwctl help [COMMAND]\n\n${COMMON}\n${EXITS}\n`;
}

/** `fwctl COMMAND --help`. */
export function commandHelp(command: string): string {
  const c = COMMAND_HELP[command];
  const options = c.options ? `\n\n${c.options.map((o) => `  ${o}`).join('\n')}` : '';
  return `usage: ${c.usage}\n\n${c.summary}${options}\n\n${COMMON}\n`;
}
