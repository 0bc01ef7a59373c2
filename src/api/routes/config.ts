// /api/config/*: the configuration session, commit, history and rollback.
import { Type } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { checkRange, shapeChecker } from '../../config/validate';
import { serializeDoc } from '../../config/document';
import type { AppContext } from '../context';
import { message, type Req, type RouteDef } from '../http';

const commitShape = shapeChecker(Type.Object({ description: Type.Optional(Type.String()) }, { additionalProperties: false }));
const rollbackShape = shapeChecker(Type.Object({ version: Type.Integer() }, { additionalProperties: false }));

function warningsField(warnings: string[]): Record<string, string> {
  return warnings.length ? { warnings: warnings.join('\n') } : {};
}

function parseVersion(text: string): number {
  if (!/^(0|[1-9]\d{0,9})$/.test(text)) throw new FwError('ERR_NET_1002', `"${text}" is not a version number`);
  return Number(text);
}

export function configRoutes(ctx: AppContext): RouteDef[] {
  const cfg = ctx.config;
  const user = (req: Req) => req.user.username;
  return [
    { method: 'POST', pattern: '/api/config/begin', body: 'none', handler: async (req) => {
      await cfg.begin(user(req));
      return message('config session started');
    } },
    { method: 'POST', pattern: '/api/config/commit', handler: async (req) => {
      const b = req.body === undefined ? {} : commitShape(req.body);
      const description = b.description ?? '';
      if (description.length > 1024) throw new FwError('ERR_NET_1004', 'field "description": at most 1024 characters');
      const r = await cfg.commit(user(req), description);
      const unconfirmed: Record<string, string> = r.unconfirmed.length ? { unconfirmed_nodes: r.unconfirmed.join(',') } : {};
      return message('commit successful', { version: String(r.version), ...warningsField(r.warnings), ...unconfirmed });
    } },
    { method: 'POST', pattern: '/api/config/discard', body: 'none', handler: async (req) => {
      const force = req.query.get('force');
      if (force !== null && force !== 'true' && force !== 'false') {
        throw new FwError('ERR_NET_1005', `query "force": "${force}" is not one of true, false`);
      }
      await cfg.discard(user(req), force === 'true');
      return message('config session discarded');
    } },
    { method: 'GET', pattern: '/api/config/session', body: 'none', handler: async () => ({ body: await cfg.info() }) },
    { method: 'GET', pattern: '/api/config/diff', body: 'none', handler: async () => ({ body: await cfg.diff() }) },
    { method: 'POST', pattern: '/api/config/validate', body: 'none', handler: async () => {
      const r = await cfg.validate();
      return message('validation passed', warningsField(r.warnings));
    } },
    { method: 'GET', pattern: '/api/config/versions', body: 'none', handler: async () => ({
      body: (await ctx.store.listVersions()).map((v) => ({
        version: v.version, author: v.author, time: new Date(v.time).toISOString(), description: v.description, summary: v.summary,
      })),
    }) },
    { method: 'GET', pattern: '/api/config/versions/:n', body: 'none', handler: async (req) => {
      const n = parseVersion(req.params.n);
      const rec = await ctx.store.getVersion(n);
      if (!rec) throw new FwError('ERR_NET_1003', `version ${n} not found`);
      const doc = await cfg.versionDoc(n);
      return { body: {
        version: rec.version, author: rec.author, time: new Date(rec.time).toISOString(),
        description: rec.description, summary: rec.summary, config: serializeDoc(doc),
      } };
    } },
    { method: 'POST', pattern: '/api/config/rollback', handler: async (req) => {
      const b = rollbackShape(req.body);
      const version = checkRange('version', b.version, 0, Number.MAX_SAFE_INTEGER);
      await cfg.rollback(user(req), version);
      return message(`version ${version} loaded into candidate`);
    } },
  ];
}
