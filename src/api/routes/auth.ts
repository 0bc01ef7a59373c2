// /api/login, /api/logout, /api/me.
import { Type } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { shapeChecker } from '../../config/validate';
import { dummyHash, verifyPassword } from '../../auth/passwords';
import type { LoginLimiter } from '../../auth/login-limiter';
import type { TokenService } from '../../auth/tokens';
import type { AppContext } from '../context';
import { message, type AuthUser, type Reply, type RouteDef } from '../http';
import { MessageReply } from '../schemas';

const LoginBody = Type.Object({ username: Type.String(), password: Type.String() }, { additionalProperties: false });
const loginShape = shapeChecker(LoginBody);
export const TokenReply = Type.Object({ token: Type.String(), expires_in: Type.Integer({ description: 'seconds' }) }, { additionalProperties: false });
export const MeReply = Type.Object(
  { username: Type.String(), role: Type.Literal('admin'), expires: Type.Integer({ description: 'unix seconds' }) },
  { additionalProperties: false },
);

const meAnswers = new WeakMap<AuthUser, Reply>();

export function authRoutes(ctx: AppContext, tokens: TokenService, limiter: LoginLimiter): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/api/login',
      auth: false,
      doc: { tag: 'auth', summary: 'Log in: a bearer token for the other routes', body: LoginBody, response: TokenReply, errors: [401, 429] },
      handler: async (req) => {
        const b = loginShape(req.body);
        const wait = await limiter.retryAfter(req.ip, b.username);
        if (wait > 0) {
          ctx.metrics.loginThrottled.inc();
          throw new FwError('ERR_SEC_5007', `try again in ${wait} s`, undefined, { 'Retry-After': String(wait) });
        }
        const user = await ctx.store.getUser(b.username);
        const ok = await verifyPassword(b.password, user?.hash ?? (await dummyHash()));
        if (!user || !ok) {
          await limiter.recordFailure(req.ip, b.username);
          ctx.metrics.loginFailures.inc();
          req.log.warn({ reqId: req.id, username: b.username, ip: req.ip }, 'login failed');
          await ctx.audit.record(req, 'auth.login-failed', `from ${req.ip}`, undefined, b.username);
          throw new FwError('ERR_SEC_5005', 'unknown user or wrong password');
        }
        await limiter.recordSuccess(b.username);
        req.log.info({ reqId: req.id, username: b.username }, 'login');
        await ctx.audit.record(req, 'auth.login', `from ${req.ip}`, undefined, b.username);
        return { body: tokens.issue(b.username) };
      },
    },
    {
      method: 'POST',
      pattern: '/api/logout',
      body: 'none',
      doc: { tag: 'auth', summary: 'Revoke the token of this request', response: MessageReply },
      handler: async (req) => {
        await tokens.revoke(req.user);
        await ctx.audit.record(req, 'auth.logout', '');
        return message('logged out');
      },
    },
    {
      method: 'GET',
      pattern: '/api/me',
      body: 'none',
      doc: { tag: 'auth', summary: 'Who the token belongs to', response: MeReply },
      // the answer of a token never changes: serialized once per (cached) token
      handler: (req) => {
        let answer = meAnswers.get(req.user);
        if (answer === undefined) {
          const json = Buffer.from(JSON.stringify({ username: req.user.username, role: req.user.role, expires: req.user.exp }));
          answer = Object.freeze({ body: undefined, json });
          meAnswers.set(req.user, answer);
        }
        return answer;
      },
    },
  ];
}
