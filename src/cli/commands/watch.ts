// fwctl watch: the events of GET /api/events as they happen, one line each (or one JSON object
// a line with --json). A dropped stream is resumed with Last-Event-ID after a short wait.
import type { FwEvent } from '../../events/types';
import { CliError, EXIT, type ApiClient } from '../api';
import { SseParser, type SseMessage } from '../sse-parser';

export interface WatchArgs {
  types?: string;
  since?: string;
  /** stop after this many events (scripts, tests) */
  count?: string;
  json: boolean;
}

/** The readable line of one event. */
export function eventLine(e: FwEvent): string {
  const what = ((): string => {
    switch (e.type) {
      case 'commit': return `version ${e.version} by ${e.author}${e.description ? `: ${e.description}` : ''} (${e.summary})${e.confirm_by ? `, confirm by ${e.confirm_by}` : ''}`;
      case 'rollback': return `version ${e.version} loaded into the candidate by ${e.user}`;
      case 'confirm': return `${e.state} version ${e.version} (${e.user})${e.deadline ? ` deadline ${e.deadline}` : ''}${e.new_version ? `: version ${e.new_version} restores ${e.restored_version}` : ''}`;
      case 'session': return `${e.state} (owner ${e.owner}, by ${e.user})`;
      // state "version": the instance serves another version now ("node-a serves version 3")
      case 'node': return e.state === 'version' ? `${e.node} serves version ${e.version}` : `${e.node} ${e.state}${e.version !== undefined ? ` version ${e.version}` : ''}`;
      case 'ha': return `${e.node} ${e.previous} -> ${e.state} since ${e.since}`;
      case 'list': return e.state === 'failed' ? `${e.address} fetch failed: ${e.error ?? ''} (the last good list of ${e.entries} stays)` : `${e.address} now ${e.entries} entries (+${e.added} -${e.removed})`;
      case 'fqdn': return `address ${e.address} (${e.fqdn}) ${e.state === 'changed' ? `now ${e.resolved.join(' ') || 'nothing'}, was ${e.previous.join(' ') || 'nothing'}` : `failed: ${e.error ?? ''}; keeps ${e.resolved.join(' ') || 'nothing'}`}`;
    }
  })();
  return `${e.at}  ${String(e.id).padStart(6)}  ${e.type.padEnd(8)}  ${what}`;
}

/**
 * Reads an event stream until `count` messages (or Ctrl-C), resuming a dropped stream with
 * Last-Event-ID after a short wait; `print` gets each message. Shared by watch and logs --follow.
 */
export async function follow(api: ApiClient, path: string, since: string | null, count: string | undefined, print: (m: SseMessage) => void): Promise<number> {
  const limit = count === undefined ? Infinity : Number(count);
  if (!(limit > 0)) throw new CliError(`--count: "${count}" is not a positive number`, EXIT.usage);
  let last = since;
  let seen = 0;
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  for (;;) {
    try {
      const r = await api.stream(path, last ? { 'Last-Event-ID': last } : {}, abort.signal);
      const parser = new SseParser((m) => {
        if (m.id) last = m.id;
        if (seen >= limit) return;
        seen++;
        print(m);
        if (seen >= limit) abort.abort();
      });
      const decoder = new TextDecoder();
      for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) parser.push(decoder.decode(chunk, { stream: true }));
    } catch (e) {
      if (abort.signal.aborted) return EXIT.ok;
      if (e instanceof CliError && e.exitCode !== EXIT.unreachable) throw e;
    }
    if (abort.signal.aborted) return EXIT.ok;
    process.stderr.write('event stream ended; reconnecting\n');
    await new Promise((r) => setTimeout(r, 2000));
  }
}

export async function watch(api: ApiClient, a: WatchArgs): Promise<number> {
  if (a.since !== undefined && !/^\d+$/.test(a.since)) throw new CliError(`--since: "${a.since}" is not an event id`, EXIT.usage);
  const query = a.types ? `?types=${encodeURIComponent(a.types)}` : '';
  return follow(api, `/api/events${query}`, a.since ?? null, a.count, (m) => {
    if (a.json) process.stdout.write(m.data + '\n');
    else if (m.event === 'resync') process.stdout.write(`resync: ${(JSON.parse(m.data) as { reason: string }).reason}; re-read the state\n`);
    else process.stdout.write(eventLine(JSON.parse(m.data) as FwEvent) + '\n');
  });
}
