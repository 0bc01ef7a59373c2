// fwctl export, plan, apply and confirm: the whole configuration as a file, through the
// declarative load of the candidate (PUT /api/config/candidate) and commit (confirmed).
import fs from 'node:fs';
import readline from 'node:readline';
import { load as loadYaml, CORE_SCHEMA } from 'js-yaml';
import type { DetailedDiffModel, DiffReplyModel } from '../../api/routes/config';
import { CliError, EXIT, type ApiClient } from '../api';
import { changeCount, diffText } from '../diff-text';
import { printJson, step } from '../output';
import { OwnSession } from '../own-session';

interface Message {
  message: string;
  version?: string;
  confirm_by?: string;
  warnings?: string;
}

/** A configuration file and the media type it is sent as (by its name: .yaml/.yml, else JSON). */
function readConfigFile(file: string | undefined): { text: string; contentType: string } {
  if (!file) throw new CliError('-f FILE is required', EXIT.usage);
  let text: string;
  try {
    text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`, EXIT.usage);
  }
  return { text, contentType: /\.ya?ml$/i.test(file) ? 'application/yaml' : 'application/json' };
}

/**
 * Refuses (64) a file that is not JSON (or YAML for .yaml/.yml) before anything is sent: apply
 * must not take the session for a file it could have refused alone (issue 43). The daemon
 * still checks everything else, with every problem and its place.
 */
function checkParses(file: string, f: { text: string; contentType: string }): void {
  try {
    if (f.contentType === 'application/yaml') loadYaml(f.text, { schema: CORE_SCHEMA });
    else JSON.parse(f.text);
  } catch (e) {
    const what = f.contentType === 'application/yaml' ? 'YAML' : 'JSON';
    throw new CliError(`${file} is not valid ${what}: ${(e as Error).message.split('\n')[0]}`, EXIT.usage);
  }
}

export async function exportConfig(api: ApiClient, a: { candidate: boolean; format?: string; output?: string; json: boolean }): Promise<number> {
  if (a.format !== undefined && a.format !== 'json' && a.format !== 'yaml') throw new CliError(`--format: "${a.format}" is not json or yaml`, EXIT.usage);
  // --json keeps standard output JSON: a YAML document goes to a file
  if (a.json && a.format === 'yaml' && !a.output) throw new CliError('--json with --format yaml needs -o FILE', EXIT.usage);
  const q = new URLSearchParams();
  if (a.candidate) q.set('config', 'candidate');
  if (a.format === 'yaml') q.set('format', 'yaml');
  const body = await api.request<unknown>('GET', `/api/config/export${q.size ? `?${q}` : ''}`);
  const text = typeof body === 'string' ? body : JSON.stringify(body, null, 2) + '\n';
  if (!a.output) process.stdout.write(text);
  else {
    fs.writeFileSync(a.output, text);
    if (a.json) printJson({ output: a.output, bytes: Buffer.byteLength(text) });
  }
  return EXIT.ok;
}

/** Loads the file into the candidate of the session fwctl holds: the diff against running. */
async function load(api: ApiClient, file: { text: string; contentType: string }, mode: string, quiet: boolean): Promise<DiffReplyModel> {
  const kib = Math.round(Buffer.byteLength(file.text) / 1024);
  return step(`loading ${kib} KiB into the candidate`, quiet, () =>
    api.request<DiffReplyModel>('PUT', `/api/config/candidate?mode=${mode}`, { raw: file }));
}

/** The plan of a file: POST /api/config/plan, read-only (no session, nothing audited as a change). */
export async function plan(api: ApiClient, a: { file?: string; merge: boolean; json: boolean }): Promise<number> {
  const file = readConfigFile(a.file);
  const diff = await api.request<DetailedDiffModel>('POST', `/api/config/plan?mode=${a.merge ? 'merge' : 'replace'}`, { raw: file });
  if (a.json) printJson(diff);
  else process.stdout.write(diffText(diff));
  return changeCount(diff) ? EXIT.changes : EXIT.ok;
}

/** Without --yes, apply asks on the terminal: checked before the session is taken. */
function checkCanAsk(a: { yes: boolean; file?: string }): void {
  if (a.yes) return;
  if (!process.stdin.isTTY) throw new CliError('not a terminal: pass --yes to apply without asking', EXIT.usage);
  if (a.file === '-') throw new CliError('-f - reads the file from standard input, which cannot answer too: pass --yes', EXIT.usage);
}

async function askYes(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  const answer = await new Promise<string>((r) => rl.question(question, r));
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

export interface ApplyArgs {
  file?: string;
  merge: boolean;
  confirm?: string;
  yes: boolean;
  description?: string;
  json: boolean;
}

export async function apply(api: ApiClient, a: ApplyArgs): Promise<number> {
  const confirmTimeout = a.confirm === undefined ? undefined : Number(a.confirm);
  if (confirmTimeout !== undefined && !(Number.isInteger(confirmTimeout) && confirmTimeout >= 1)) {
    throw new CliError(`--confirm: "${a.confirm}" is not a number of seconds`, EXIT.usage);
  }
  const file = readConfigFile(a.file);
  checkParses(a.file!, file);
  checkCanAsk(a);
  const quiet = a.json;
  const session = await OwnSession.begin(api);
  try {
    await load(api, file, a.merge ? 'merge' : 'replace', quiet);
    // the load's diff in detail (fields, moves), as plan shows it
    const diff = await api.request<DetailedDiffModel>('GET', '/api/config/diff?detail=true');
    if (!quiet) process.stdout.write(diffText(diff));
    if (!changeCount(diff)) {
      if (a.json) printJson({ changes: 0, diff });
      return EXIT.ok;
    }
    if (!a.yes && !(await askYes('apply these changes? [y/N] '))) {
      if (a.json) printJson({ changes: changeCount(diff), diff, applied: false });
      else process.stderr.write('not applied\n');
      return EXIT.aborted;
    }
    const checked = await step('validating', quiet, () => api.request<Message>('POST', '/api/config/validate'));
    if (checked.warnings && !quiet) process.stderr.write(`warnings:\n${checked.warnings}\n`);
    const body: Record<string, unknown> = { description: a.description ?? `fwctl apply ${a.file}` };
    if (confirmTimeout !== undefined) body.confirm_timeout = confirmTimeout;
    const r = await session.commit(() => step('committing', quiet, () => api.request<Message>('POST', '/api/config/commit', { body })));
    if (a.json) printJson({ changes: changeCount(diff), diff, commit: r });
    else {
      process.stdout.write(`committed version ${r.version}\n`);
      if (r.confirm_by) process.stdout.write(`commit confirmed: run "fwctl confirm" before ${r.confirm_by}, or version ${Number(r.version) - 1} is restored\n`);
    }
    return EXIT.ok;
  } catch (e) {
    return await session.unlessInterrupted(e);
  } finally {
    await session.release();
  }
}

export async function confirm(api: ApiClient, json: boolean): Promise<number> {
  let r: Message;
  try {
    r = await api.request<Message>('POST', '/api/config/confirm');
  } catch (e) {
    // the answer's message and details say "nothing pending" twice: one line says it once
    if (e instanceof CliError && e.code === 'ERR_SYS_3004') throw new CliError('no commit is waiting for confirmation (409 ERR_SYS_3004)', EXIT.conflict, e.code, e.status);
    throw e;
  }
  if (json) printJson(r);
  else process.stdout.write(`version ${r.version} confirmed\n`);
  return EXIT.ok;
}
