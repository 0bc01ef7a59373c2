// Every route of the API, registered once at start-up.
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context';
import type { RouteDef } from '../http';
import { authRoutes } from './auth';
import { userRoutes } from './users';
import { tokenRoutes } from './tokens';
import { configRoutes } from './config';
import { automationRoutes } from './automation';
import { statusRoutes } from './status';
import { addressRoutes } from './addresses';
import { evalRoutes } from './eval';
import { serviceRoutes } from './services';
import { addressGroupRoutes, serviceGroupRoutes } from './groups';
import { zoneRoutes } from './zones';
import { interfaceRoutes } from './interfaces';
import { vlanRoutes } from './vlans';
import { dhcpRoutes } from './dhcp';
import { routeRoutes } from './routes';
import { policyRoutes } from './policies';
import { natRoutes } from './nat';
import { localPolicyRoutes } from './local-policies';
import { dataPlaneRoutes } from './dataplane';
import { sessionRoutes } from './sessions';
import { trafficRoutes } from './traffic';
import { hitRoutes } from './hits';
import { auditRoutes } from './audit';
import { operationsRoutes } from './operations';
import { clusterRoutes } from './cluster';
import { eventRoutes } from './events';
import { searchRoutes, usageRoutes } from './usage';
import { haRoutes } from './ha';
import { dynamicSetRoutes } from './dynamic-sets';
import { scheduleRoutes } from './schedules';

/** The daemon's version (package.json, found above this file in src/ or dist/src/), shown in the OpenAPI document. */
function packageVersion(): string {
  for (let d = __dirname; path.dirname(d) !== d; d = path.dirname(d)) {
    const file = path.join(d, 'package.json');
    if (fs.existsSync(file)) return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return '0.0.0';
}
const VERSION = packageVersion();

export function allRoutes(ctx: AppContext): RouteDef[] {
  const routes: RouteDef[] = [
    ...operationsRoutes(ctx, () => routes, VERSION),
    ...auditRoutes(ctx),
    ...authRoutes(ctx),
    ...userRoutes(ctx),
    ...tokenRoutes(ctx),
    ...configRoutes(ctx),
    ...automationRoutes(ctx, () => routes),
    ...statusRoutes(ctx),
    ...addressRoutes(ctx),
    ...usageRoutes(ctx),
    ...searchRoutes(ctx),
    ...evalRoutes(ctx),
    ...serviceRoutes(ctx),
    ...addressGroupRoutes(ctx),
    ...serviceGroupRoutes(ctx),
    ...zoneRoutes(ctx),
    ...interfaceRoutes(ctx),
    ...vlanRoutes(ctx),
    ...dhcpRoutes(ctx),
    ...routeRoutes(ctx),
    ...policyRoutes(ctx),
    ...natRoutes(ctx),
    ...localPolicyRoutes(ctx),
    ...dataPlaneRoutes(ctx),
    ...sessionRoutes(ctx),
    ...trafficRoutes(ctx),
    ...hitRoutes(ctx),
    ...clusterRoutes(ctx),
    ...eventRoutes(ctx),
    ...haRoutes(ctx),
    ...dynamicSetRoutes(ctx),
    ...scheduleRoutes(ctx),
  ];
  return routes;
}
