// /api/login, /api/logout, /api/me.
import { Type } from '@sinclair/typebox';
import { FwError } from '../../errors';
import { shapeChecker } from '../../config/validate';
import { dummyHash, verifyPassword } from '../../auth/passwords';
import type { LoginLimiter } from '../../auth/login-limiter';
import type { TokenService } from '../../auth/tokens';
import type { AppContext } from '../context';
import { message, type RouteDef } from '../http';

const loginShape = shapeChecker(Type.Object({ username: Type.String(), password: Type.String() }, { additionalProperties: false }));

export function authRoutes(ctx: AppContext, tokens: TokenService, limiter: LoginLimiter): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/api/login',
      auth: false,
      handler: async (req) => {
        const b = loginShape(req.body);
        const wait = await limiter.retryAfter(req.ip, b.username);
        if (wait > 0) {
          throw new FwError('ERR_SEC_5007', `try again in ${wait} s`, undefined, { 'Retry-After': String(wait) });
        }
        const user = await ctx.store.getUser(b.username);
        const ok = await verifyPassword(b.password, user?.hash ?? (await dummyHash()));
        if (!user || !ok) {
          await limiter.recordFailure(req.ip, b.username);
          req.log.warn({ reqId: req.id, username: b.username, ip: req.ip }, 'login failed');
          throw new FwError('ERR_SEC_5005', 'unknown user or wrong password');
        }
        await limiter.recordSuccess(b.username);
        req.log.info({ reqId: req.id, username: b.username }, 'login');
        return { body: tokens.issue(b.username) };
      },
    },
    {
      method: 'POST',
      pattern: '/api/logout',
      body: 'none',
      handler: async (req) => {
        await tokens.revoke(req.user);
        return message('logged out');
      },
    },
    {
      method: 'GET',
      pattern: '/api/me',
      body: 'none',
      handler: (req) => ({ body: { username: req.user.username, role: req.user.role, expires: req.user.exp } }),
    },
  ];
}
