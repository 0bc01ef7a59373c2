// Every resource's operations, by kind.
import type { ResourceKind } from '../changes';
import type { ResourceOps } from '../resource';
import { addressOps } from './address';
import { serviceOps } from './service';
import { zoneOps } from './zone';
import { interfaceOps } from './interface';
import { vlanOps } from './vlan';
import { dhcpOps } from './dhcp';
import { routeOps } from './route';
import { policyOps } from './policy';
import { natOps } from './nat';
import { localPolicyOps } from './local-policy';
import { addressGroupOps, serviceGroupOps } from './group';
import { haOps } from './ha';
import { dynamicSetOps } from './dynamic-set';
import { scheduleOps } from './schedule';

export const RESOURCES: Record<ResourceKind, ResourceOps> = {
  address: addressOps,
  service: serviceOps,
  zone: zoneOps,
  interface: interfaceOps,
  vlan: vlanOps,
  dhcp: dhcpOps,
  route: routeOps,
  policy: policyOps,
  nat: natOps,
  'local-policy': localPolicyOps,
  'address-group': addressGroupOps,
  'service-group': serviceGroupOps,
  ha: haOps,
  'dynamic-set': dynamicSetOps,
  schedule: scheduleOps,
};
