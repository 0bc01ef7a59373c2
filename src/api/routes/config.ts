// /api/config/*: the configuration session, commit, history and rollback.
import { QueryBool } from '../schemas';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { checked, checkRange, shapeChecker } from '../../config/validate';
import { serializeDoc } from '../../config/document';
import { oneOf } from '../../config/render/objects';
import { detailedDiff } from '../../config/diff-detail';
import { analysisChanges } from '../../config/analysis-changes';
import type { ConfigDoc } from '../../config/types';
import type { AppContext } from '../context';
import { cutDenied } from './sessions';
import { can } from '../../auth/roles';
import { forbidden } from '../../auth/user';
import { message, type Req, type RouteDef, type RouteDoc } from '../http';
import { IsoTime, MessageReply, SessionModel } from '../schemas';
import type { Analysis } from '../../eval/analysis-types';
import { warningsInProportion } from '../../session/warning-summary';


/** A commit confirmed waits at most a day (Junos: 65,535 minutes; a day is plenty for a pipeline). */
const MAX_CONFIRM_TIMEOUT = 86_400;
const CommitBody = Type.Object({
  description: Type.Optional(Type.String({ description: 'at most 1024 characters', ...checked({ maxLength: 1024 }) })),
  confirm_timeout: Type.Optional(Type.Integer({
    ...checked({ minimum: 1, maximum: MAX_CONFIRM_TIMEOUT }),
    description: `commit confirmed: seconds (1 to ${MAX_CONFIRM_TIMEOUT}) until the daemon restores the previous version unless POST /api/config/confirm (or another commit) comes first`,
  })),
}, { additionalProperties: false });
const RollbackBody = Type.Object({ version: Type.Integer(checked({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })) }, { additionalProperties: false });
const commitShape = shapeChecker(CommitBody);
const rollbackShape = shapeChecker(RollbackBody);

const ruleName = { name: Type.Optional(Type.String({ description: 'a policy\'s or NAT rule\'s name, when it has one' })) };
const rulePosition = (what: string) => ({ position: Type.Optional(Type.Integer({ minimum: 1, description: `policies, NAT rules and local policies: ${what} (1: top)` })) });
const DiffItems = Type.Array(Type.Object({ kind: Type.String(), key: Type.String(), ...ruleName }, { additionalProperties: false }));
export const DiffReply = Type.Object({
  base_version: Type.Integer({ minimum: 0 }),
  added: DiffItems,
  changed: DiffItems,
  deleted: DiffItems,
  reordered: Type.Array(Type.String()),
}, { additionalProperties: false });
/** GET /api/config/diff's answer (also the answer of a declarative load; fwctl plan and apply show it). */
export type DiffReplyModel = Static<typeof DiffReply>;
const Neighbours = Type.Object({
  above: Type.Union([Type.String(), Type.Null()], { description: 'the id of the rule just above; null at the top' }),
  below: Type.Union([Type.String(), Type.Null()], { description: 'the id of the rule just below; null at the bottom' }),
}, { additionalProperties: false });
/** The diff with, per changed object, its fields (old and new), and the rules that moved. */
export const DetailedDiffReply = Type.Object({
  base_version: Type.Integer({ minimum: 0 }),
  added: Type.Array(Type.Object({ kind: Type.String(), key: Type.String(), ...ruleName, ...rulePosition('where the rule lands') }, { additionalProperties: false })),
  changed: Type.Array(Type.Object({
    kind: Type.String(), key: Type.String(), ...ruleName, ...rulePosition('where the rule is'),
    fields: Type.Array(Type.Object({ field: Type.String(), old: Type.Unknown(), new: Type.Unknown() }, { additionalProperties: false }),
      { description: 'the fields that differ, in the create payload\'s spelling' }),
  }, { additionalProperties: false })),
  deleted: Type.Array(Type.Object({ kind: Type.String(), key: Type.String(), ...ruleName, ...rulePosition('where the rule was') }, { additionalProperties: false })),
  reordered: Type.Array(Type.String()),
  moved: Type.Array(Type.Object({
    kind: oneOf(['policy', 'nat'] as const), key: Type.String(), ...ruleName,
    from: Type.Integer({ minimum: 1, description: 'old position (1: top)' }), to: Type.Integer({ minimum: 1, description: 'new position' }),
    old_neighbours: Neighbours, new_neighbours: Neighbours,
  }, { additionalProperties: false }), { description: 'the fewest rules whose moves explain the new order' }),
}, { additionalProperties: false });
export type DetailedDiffModel = Static<typeof DetailedDiffReply>;
const Status = oneOf(['shadowed', 'redundant', 'partially-shadowed', 'undecided', 'unreachable', 'ok'] as const);
/** The candidate's detailed diff with the analysis changes (?detail=true&analysis=true). */
const DiffWithAnalysis = Type.Object({
  ...DetailedDiffReply.properties,
  analysis_changes: Type.Array(Type.Object({
    kind: oneOf(['policy', 'nat'] as const), status: Status, by: Type.Array(Type.Integer(), { description: 'the rules that cause the status' }),
    rules: Type.Array(Type.Object({ id: Type.Integer(), was: Status }, { additionalProperties: false })),
  }, { additionalProperties: false }), { description: 'groups of rules that get one status from the same rules, largest first' }),
}, { additionalProperties: false });
const versionFields = {
  version: Type.Integer({ minimum: 0 }),
  author: Type.String(),
  time: IsoTime,
  description: Type.String(),
  summary: Type.String(),
};
export const VersionModel = Type.Object(versionFields, { additionalProperties: false });
const TableRows = Type.Array(Type.Object({}, { additionalProperties: true }));
export const VersionWithConfig = Type.Object({
  ...versionFields,
  config: Type.Object({
    addresses: TableRows, services: TableRows,
    addressGroups: Type.Optional(TableRows), serviceGroups: Type.Optional(TableRows), // present when there are groups
    zones: TableRows, interfaces: TableRows, vlans: TableRows,
    dhcp: TableRows, routes: TableRows, policies: TableRows, nat: TableRows,
    localPolicies: Type.Optional(TableRows), // issue 41: present when there are local policies
    counters: Type.Object({ policy: Type.Integer(), nat: Type.Integer(), route: Type.Integer(), localPolicy: Type.Optional(Type.Integer()) }, { additionalProperties: false }),
  }, { additionalProperties: false, description: 'the stored form of the configuration' }),
}, { additionalProperties: false });
const forceQuery = {
  force: { schema: QueryBool, description: 'true: discard another user\'s session (role admin: the force permission)' },
};
const doc = (summary: string, response: TSchema = MessageReply, more: Partial<RouteDoc> = {}): RouteDoc =>
  ({ tag: 'config', summary, response, errors: [409], ...more });

/** The warnings in proportion to the change (warning-summary.ts); all of them when an analysis is missing. */
function inProportion(all: string[], before: Analysis | null, after: Analysis | null, policies: Array<{ id: number }>): string[] {
  return before && after ? warningsInProportion(all, before, after, policies.map((p) => p.id)) : all;
}

function warningsField(warnings: string[]): Record<string, string> {
  return warnings.length ? { warnings: warnings.join('\n') } : {};
}

function parseVersion(text: string): number {
  if (!/^(0|[1-9]\d{0,9})$/.test(text)) throw new FwError('ERR_NET_1002', `"${text}" is not a version number`);
  return Number(text);
}

const diffQuery = {
  detail: { schema: QueryBool, description: 'true: the changed fields (old, new), added rules\' positions and the moved rules with their neighbours' },
  from: { schema: Type.Integer({ minimum: 0 }), description: 'with to: compare two committed versions (no session needed; always in detail)' },
  to: { schema: Type.Integer({ minimum: 0 }), description: 'the later version of the comparison' },
  analysis: { schema: QueryBool, description: 'with detail=true: the rules whose analysis status the candidate changes, grouped (the candidate is compiled)' },
};

export function configRoutes(ctx: AppContext): RouteDef[] {
  const cfg = ctx.config;
  /** GET /api/config/diff: the candidate against running (in detail on request), or two versions. */
  const diffAnswer = async (req: Req) => {
    const detail = req.query.get('detail');
    if (detail !== null && detail !== 'true' && detail !== 'false') throw new FwError('ERR_NET_1005', `query "detail": "${detail}" is not one of true, false`);
    const from = req.query.get('from');
    const to = req.query.get('to');
    if ((from === null) !== (to === null)) throw new FwError('ERR_NET_1005', 'query "from" and "to" go together');
    if (from !== null && to !== null) {
      const [a, b] = [parseVersion(from), parseVersion(to)];
      const [before, after] = await Promise.all([cfg.versionDoc(a), cfg.versionDoc(b)]);
      return detailedDiff(before, after, a);
    }
    const analysis = req.query.get('analysis');
    if (analysis !== null && analysis !== 'true' && analysis !== 'false') throw new FwError('ERR_NET_1005', `query "analysis": "${analysis}" is not one of true, false`);
    if (detail !== 'true') return cfg.diff();
    const { doc } = await cfg.candidate();
    await cfg.refreshRunning();
    const running = cfg.current();
    const answer = detailedDiff(running.doc, doc, running.meta.version);
    if (analysis !== 'true') return answer;
    return { ...answer, analysis_changes: await candidateAnalysisChanges(running, doc) };
  };
  /** The policies and NAT rules present in both whose analysis the candidate changes (both compiled in the pool). */
  const candidateAnalysisChanges = async (running: ReturnType<typeof cfg.current>, doc: ConfigDoc) => {
    const [before, after] = await Promise.all([running.compiled, cfg.compiledCandidate()]);
    if (!before.compiled.analysis || !after.compiled.analysis) throw new FwError('ERR_SYS_4001', 'the analysis was not computed');
    const kept = (a: Array<{ id: number }>, b: Array<{ id: number }>) => { const ids = new Set(a.map((r) => r.id)); return b.map((r) => r.id).filter((id) => ids.has(id)); };
    return analysisChanges(before.compiled.analysis, after.compiled.analysis, { policy: kept(running.doc.policies, doc.policies), nat: kept(running.doc.nat, doc.nat) });
  };
  /** A commit's warnings against the version before it: the new running version's analysis, when this instance has it. */
  const commitWarnings = async (all: string[], previous: ReturnType<typeof cfg.current>, version: number): Promise<string[]> => {
    await cfg.refreshRunning();
    const now = cfg.current();
    if (now.meta.version !== version) return all;
    const [before, after] = await Promise.all([previous.compiled, now.compiled]);
    return inProportion(all, before.compiled.analysis, after.compiled.analysis, now.doc.policies);
  };
  /** The deadline of a commit confirmed just made (a job retried in a cluster answers without it: read it back). */
  const confirmByField = async (version: number, confirmBy: number | undefined): Promise<{ confirm_by?: string }> => {
    if (confirmBy !== undefined) return { confirm_by: new Date(confirmBy).toISOString() };
    const p = await cfg.pendingConfirm();
    return p?.version === version ? { confirm_by: p.deadline } : {};
  };
  const user = (req: Req) => req.user.username;
  /** Acting on another user's session or commit takes the force permission: known only once
   * whose it is, so checked in the handler rather than by the route's declaration. */
  const mayForce = (req: Req, what: string) => () => {
    if (!can(req.user.role, 'force')) throw forbidden('force', req.user, what);
  };
  return [
    { method: 'POST', pattern: '/api/config/begin', body: 'none', permission: 'configure', doc: doc('Begin the configuration session'), handler: async (req) => {
      await cfg.begin(user(req));
      await ctx.audit.record(req, 'session.begin', '');
      return message('config session started');
    } },
    { method: 'POST', pattern: '/api/config/commit', permission: 'configure', doc: doc('Commit the candidate: a new running version', MessageReply, { body: CommitBody, bodyOptional: true, errors: [409, 504] }), handler: async (req) => {
      const b = req.body === undefined ? {} : commitShape(req.body);
      const description = b.description ?? '';
      if (description.length > 1024) throw new FwError('ERR_NET_1004', 'field "description": at most 1024 characters');
      const confirmTimeout = b.confirm_timeout === undefined ? undefined : checkRange('confirm_timeout', b.confirm_timeout, 1, MAX_CONFIRM_TIMEOUT);
      await cfg.refreshRunning();
      const previous = cfg.current(); // the version the change is measured against
      const end = ctx.metrics.commitSeconds.startTimer();
      const r = await cfg.commit(user(req), description, confirmTimeout).then(
        (ok) => { ctx.metrics.commits.inc({ result: 'ok' }); return ok; },
        (e: unknown) => { ctx.metrics.commits.inc({ result: 'failed' }); throw e; },
      ).finally(end);
      const confirmBy = confirmTimeout === undefined ? {} : await confirmByField(r.version, r.confirmBy);
      await ctx.audit.record(req, 'config.commit', `version ${r.version}${confirmBy.confirm_by ? `, to be confirmed by ${confirmBy.confirm_by}` : ''}`, confirmTimeout === undefined ? { description } : { description, confirm_timeout: confirmTimeout });
      const unconfirmed: Record<string, string> = r.unconfirmed.length ? { unconfirmed_nodes: r.unconfirmed.join(',') } : {};
      return message('commit successful', { version: String(r.version), ...confirmBy, ...warningsField(await commitWarnings(r.warnings, previous, r.version)), ...unconfirmed, ...(await cutField(ctx)) });
    } },
    { method: 'POST', pattern: '/api/config/confirm', body: 'none', permission: 'configure', doc: doc('Confirm the pending commit confirmed: keep it running (its author, or an admin)', MessageReply, { errors: [409] }), handler: async (req) => {
      const version = await ctx.confirmation.confirm(user(req), mayForce(req, 'confirming another user\'s commit'));
      await ctx.audit.record(req, 'config.confirm', `version ${version}`);
      return message('commit confirmed', { version: String(version) });
    } },
    { method: 'POST', pattern: '/api/config/discard', body: 'none', permission: 'configure', doc: doc('Discard the session and its candidate', MessageReply, { query: forceQuery }), handler: async (req) => {
      const force = req.query.get('force');
      if (force !== null && force !== 'true' && force !== 'false') {
        throw new FwError('ERR_NET_1005', `query "force": "${force}" is not one of true, false`);
      }
      const owner = await cfg.discard(user(req), force === 'true', mayForce(req, 'discarding another user\'s session'));
      await ctx.audit.sessionEnded(req, owner);
      return message('config session discarded');
    } },
    { method: 'GET', pattern: '/api/config/session', body: 'none', permission: 'read', doc: doc('The session, if any', SessionModel, { errors: [] }), handler: async () => ({ body: await cfg.info() }) },
    { method: 'GET', pattern: '/api/config/diff', body: 'none', permission: 'read',
      doc: doc('What the candidate changes (?detail=true: field by field, moves; ?from=&to=: between two versions)', Type.Union([DiffReply, DetailedDiffReply, DiffWithAnalysis]), { query: diffQuery, errors: [404, 409] }),
      handler: async (req) => ({ body: await diffAnswer(req) }) },
    { method: 'POST', pattern: '/api/config/validate', body: 'none', permission: 'configure', doc: doc('Run the commit checks on the candidate', MessageReply, { errors: [400, 409, 504] }), handler: async () => {
      await cfg.refreshRunning();
      const running = cfg.current();
      const r = await cfg.validate();
      const [before, after, { doc }] = await Promise.all([running.compiled, cfg.compiledCandidate(), cfg.candidate()]);
      return message('validation passed', warningsField(inProportion(r.warnings, before.compiled.analysis, after.compiled.analysis, doc.policies)));
    } },
    { method: 'GET', pattern: '/api/config/versions', body: 'none', permission: 'read', doc: doc('The committed versions', Type.Array(VersionModel), { errors: [] }), handler: async () => ({
      body: (await cfg.versionHistory()).map((v) => ({
        version: v.version, author: v.author, time: new Date(v.time).toISOString(), description: v.description, summary: v.summary,
      })),
    }) },
    { method: 'GET', pattern: '/api/config/versions/:n', body: 'none', permission: 'read', noStore: true, doc: doc('One committed version with its configuration', VersionWithConfig, { errors: [] }), handler: async (req) => {
      const n = parseVersion(req.params.n);
      // the meta first (404 before any rebuild); a version stored as a delta is rebuilt once, by versionDoc
      const rec = await cfg.versionMeta(n);
      const doc = await cfg.versionDoc(n);
      return { body: {
        version: rec.version, author: rec.author, time: new Date(rec.time).toISOString(),
        description: rec.description, summary: rec.summary, config: serializeDoc(doc),
      } };
    } },
    { method: 'POST', pattern: '/api/config/rollback', permission: 'configure', doc: doc('Load a committed version into the candidate', MessageReply, { body: RollbackBody, errors: [404, 409] }), handler: async (req) => {
      const b = rollbackShape(req.body);
      const version = checkRange('version', b.version, 0, Number.MAX_SAFE_INTEGER);
      await cfg.rollback(user(req), version);
      await ctx.audit.record(req, 'config.rollback', `version ${version} loaded into the candidate`, { version });
      return message(`version ${version} loaded into candidate`);
    } },
  ];
}

/**
 * `cut`: the live connections the new version denies, ended by the commit (with the data
 * plane and rematch on; absent otherwise). A failure to read or delete them does not undo
 * the commit: rematch still cuts each at its next packet.
 */
async function cutField(ctx: AppContext): Promise<Record<string, string>> {
  if (ctx.dataPlane.mode !== 'linux' || !ctx.settings.sessionRematch) return {};
  try {
    return { cut: String(await cutDenied(ctx)) };
  } catch (e) {
    ctx.log.warn({ err: String(e) }, 'commit: ending the connections it denies failed; rematch cuts them at their next packet');
    return {};
  }
}
