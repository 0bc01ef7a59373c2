// Every route of the API, registered once at start-up.
import type { AppContext } from '../context';
import type { RouteDef } from '../http';
import type { TokenService } from '../../auth/tokens';
import type { LoginLimiter } from '../../auth/login-limiter';
import { authRoutes } from './auth';
import { userRoutes } from './users';
import { configRoutes } from './config';
import { statusRoutes } from './status';
import { addressRoutes } from './addresses';
import { evalRoutes } from './eval';
import { serviceRoutes } from './services';
import { zoneRoutes } from './zones';
import { interfaceRoutes } from './interfaces';
import { vlanRoutes } from './vlans';
import { dhcpRoutes } from './dhcp';
import { routeRoutes } from './routes';
import { policyRoutes } from './policies';
import { natRoutes } from './nat';
import { clusterRoutes } from './cluster';

export function allRoutes(ctx: AppContext, tokens: TokenService, limiter: LoginLimiter): RouteDef[] {
  return [
    ...authRoutes(ctx, tokens, limiter),
    ...userRoutes(ctx, tokens),
    ...configRoutes(ctx),
    ...statusRoutes(ctx),
    ...addressRoutes(ctx),
    ...evalRoutes(ctx),
    ...serviceRoutes(ctx),
    ...zoneRoutes(ctx),
    ...interfaceRoutes(ctx),
    ...vlanRoutes(ctx),
    ...dhcpRoutes(ctx),
    ...routeRoutes(ctx),
    ...policyRoutes(ctx),
    ...natRoutes(ctx),
    ...clusterRoutes(ctx),
  ];
}
