// The API's shapes as the daemon itself defines them (its TypeBox schemas): type-only imports,
// erased by esbuild, so no daemon code reaches the browser while any change of a field the
// console uses fails the console's type check (npm run build).
import type { Static, TSchema } from '@sinclair/typebox';
import type { AddressModel, DhcpModel, GroupModel, InterfaceModel, ServiceModel, VlanModel, ZoneModel } from '../../src/config/render/objects';
import type { NatModel, PolicyModel, RouteModel } from '../../src/config/render/rules';
import type { SessionModel } from '../../src/api/schemas';
import type { MeReply, TokenReply } from '../../src/api/routes/auth';
import type { DetailedDiffReply, DiffReply, VersionModel, VersionWithConfig } from '../../src/api/routes/config';
import type { AnalysisReply, EvalReply, PacketBody } from '../../src/api/routes/eval';
import type { StatusReply } from '../../src/api/routes/status';
import type { AuditPage } from '../../src/api/routes/audit';
import type { ImpactReplyModel, SessionPageModel } from '../../src/api/routes/sessions';
import type { HitsReplyModel } from '../../src/api/routes/hits';
import type { TrafficPageModel } from '../../src/api/routes/traffic';
import type { UserModel } from '../../src/api/routes/users';
import type { NodeModel } from '../../src/api/routes/cluster';
import type { PoolLeases } from '../../src/dataplane/leases';
import type { Created, TokenModel } from '../../src/api/routes/tokens';
import type { MoveBody } from '../../src/config/moves';
import type { bodies as addressBodies } from '../../src/config/resources/address';
import type { bodies as serviceBodies } from '../../src/config/resources/service';
import type { bodies as zoneBodies } from '../../src/config/resources/zone';
import type { bodies as interfaceBodies } from '../../src/config/resources/interface';
import type { bodies as vlanBodies } from '../../src/config/resources/vlan';
import type { bodies as dhcpBodies } from '../../src/config/resources/dhcp';
import type { bodies as routeBodies } from '../../src/config/resources/route';
import type { bodies as policyBodies } from '../../src/config/resources/policy';
import type { bodies as natBodies } from '../../src/config/resources/nat';
import type { bodies as localPolicyBodies } from '../../src/config/resources/local-policy';
import type { LocalPolicyModel } from '../../src/config/render/local-policy';
import type { bodies as scheduleBodies } from '../../src/config/resources/schedule';
import type { ScheduleModel } from '../../src/api/routes/schedules';
import type { groupBodies } from '../../src/config/resources/group';
import type { Role, Permission } from '../../src/auth/roles';

export type { AddressModel, GroupModel, DhcpModel, InterfaceModel, ServiceModel, VlanModel, ZoneModel, NatModel, PolicyModel, RouteModel, Role, Permission };
export type Session = Static<typeof SessionModel>;
/** A commit confirmed waiting for POST /api/config/confirm (the session's pending_confirm). */
export type PendingConfirm = NonNullable<Session['pending_confirm']>;
export type Me = Static<typeof MeReply>;
export type Token = Static<typeof TokenReply>;
export type Diff = Static<typeof DiffReply>;
/** GET /api/config/diff?detail=true: fields, positions, moved rules. */
export type DetailedDiff = Static<typeof DetailedDiffReply>;
export type Version = Static<typeof VersionModel>;
export type VersionConfig = Static<typeof VersionWithConfig>;
export type Analysis = Static<typeof AnalysisReply>;
export type EvalAnswer = Static<typeof EvalReply>;
export type Packet = Static<typeof PacketBody>;
export type Status = Static<typeof StatusReply>;
export type AuditEntries = Static<typeof AuditPage>;
/** GET /api/sessions: live connections of the data plane (not configuration sessions) */
export type LiveSessionPage = SessionPageModel;
export type LiveSession = SessionPageModel['sessions'][number];
export type ImpactReply = ImpactReplyModel;
export type HitsReply = HitsReplyModel;
export type RuleHits = NonNullable<HitsReplyModel['rules']>[number];
/** GET /api/logs/traffic and the live tail's records */
export type TrafficPage = TrafficPageModel;
export type TrafficRecord = TrafficPageModel['records'][number];
export type User = Static<typeof UserModel>;
export type ClusterNode = Static<typeof NodeModel>;
export type { PoolLeases };
export type Move = Static<typeof MoveBody>;
export type ApiToken = Static<typeof TokenModel>;
export type CreatedToken = Static<typeof Created>;

type Bodies<B> = {
  create: B extends { create: infer C extends TSchema } ? Static<C> : never;
  update: B extends { update: infer U extends TSchema } ? Static<U> : never;
};
/** Each resource's create and update bodies, by the key the console names it with. */
export interface ResourceBodies {
  addresses: Bodies<typeof addressBodies>;
  services: Bodies<typeof serviceBodies>;
  'address-groups': Bodies<typeof groupBodies>;
  'service-groups': Bodies<typeof groupBodies>;
  zones: Bodies<typeof zoneBodies>;
  interfaces: Bodies<typeof interfaceBodies>;
  vlans: Bodies<typeof vlanBodies>;
  dhcp: Bodies<typeof dhcpBodies>;
  routes: Bodies<typeof routeBodies>;
  policies: Bodies<typeof policyBodies>;
  nat: Bodies<typeof natBodies>;
  'local-policies': Bodies<typeof localPolicyBodies>;
  schedules: Bodies<typeof scheduleBodies>;
}
/** Each resource's read model. */
export interface ResourceModels {
  addresses: AddressModel;
  services: ServiceModel;
  'address-groups': GroupModel;
  'service-groups': GroupModel;
  zones: ZoneModel;
  interfaces: InterfaceModel;
  vlans: VlanModel;
  dhcp: DhcpModel;
  routes: RouteModel;
  policies: PolicyModel;
  nat: NatModel;
  'local-policies': LocalPolicyModel;
  schedules: Schedule;
}
/** GET /api/schedules (issue 40 item 4): with whether each is on now. */
export type Schedule = Static<typeof ScheduleModel>;
export type ResourceKey = keyof ResourceModels;

/** The error body of the contract. */
export interface ApiErrorBody {
  code: string;
  message: string;
  details: string;
}
