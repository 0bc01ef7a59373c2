// fwctl export, plan, apply and confirm: the whole configuration as a file, through the
// declarative load of the candidate (PUT /api/config/candidate) and commit (confirmed).
import fs from 'node:fs';
import readline from 'node:readline';
import type { DetailedDiffModel, DiffReplyModel } from '../../api/routes/config';
import { CliError, EXIT, type ApiClient } from '../api';
import { changeCount, diffText } from '../diff-text';
import { printJson, step } from '../output';

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

/**
 * Begins a session and loads the file into its candidate: the diff against running. The
 * session is discarded again if loading fails.
 */
async function beginAndLoad(api: ApiClient, file: { text: string; contentType: string }, mode: string, quiet: boolean): Promise<DiffReplyModel> {
  await api.request('POST', '/api/config/begin');
  try {
    const kib = Math.round(Buffer.byteLength(file.text) / 1024);
    return await step(`loading ${kib} KiB into the candidate`, quiet, () =>
      api.request<DiffReplyModel>('PUT', `/api/config/candidate?mode=${mode}`, { raw: file }));
  } catch (e) {
    await discard(api);
    throw e;
  }
}

async function discard(api: ApiClient): Promise<void> {
  await api.request('POST', '/api/config/discard').catch(() => undefined);
}

/** The plan of a file: POST /api/config/plan, read-only (no session, nothing audited as a change). */
export async function plan(api: ApiClient, a: { file?: string; merge: boolean; json: boolean }): Promise<number> {
  const file = readConfigFile(a.file);
  const diff = await api.request<DetailedDiffModel>('POST', `/api/config/plan?mode=${a.merge ? 'merge' : 'replace'}`, { raw: file });
  if (a.json) printJson(diff);
  else process.stdout.write(diffText(diff));
  return changeCount(diff) ? EXIT.changes : EXIT.ok;
}

async function askYes(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) throw new CliError('not a terminal: pass --yes to apply without asking', EXIT.usage);
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
  const quiet = a.json;
  await beginAndLoad(api, file, a.merge ? 'merge' : 'replace', quiet);
  let committed = false;
  try {
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
    const r = await step('committing', quiet, () => api.request<Message>('POST', '/api/config/commit', { body }));
    committed = true;
    if (a.json) printJson({ changes: changeCount(diff), diff, commit: r });
    else {
      process.stdout.write(`committed version ${r.version}\n`);
      if (r.confirm_by) process.stdout.write(`commit confirmed: run "fwctl confirm" before ${r.confirm_by}, or version ${Number(r.version) - 1} is restored\n`);
    }
    return EXIT.ok;
  } finally {
    if (!committed) await discard(api);
  }
}

export async function confirm(api: ApiClient, json: boolean): Promise<number> {
  const r = await api.request<Message>('POST', '/api/config/confirm');
  if (json) printJson(r);
  else process.stdout.write(`version ${r.version} confirmed\n`);
  return EXIT.ok;
}
