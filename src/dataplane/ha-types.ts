// What the HA runtime (ha-runtime.ts) tells the API: this node's VRRP state and its sync link.
import { Type, type Static } from '@sinclair/typebox';

export const HA_STATES = ['master', 'backup', 'fault', 'disabled'] as const;
export type HaState = (typeof HA_STATES)[number];

const State = Type.Union(HA_STATES.map((s) => Type.Literal(s)));
const Time = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const HaStatusModel = Type.Object({
  node: Type.String({ description: 'the instance this status is of (FW_NODE_ID)' }),
  enabled: Type.Boolean({ description: 'the running configuration enables the pair and names this node' }),
  state: State,
  since: Time,
  maintenance: Type.Boolean({ description: 'stepped down by POST /api/ha/failover: stays out of the master role until resumed' }),
  dataplane_ok: Type.Boolean({ description: 'the kernel holds the running version (else keepalived keeps this node in fault)' }),
  virtual_addresses: Type.Array(Type.Object({
    interface: Type.String(),
    vrid: Type.Integer(),
    address: Type.String(),
    held: Type.Boolean({ description: 'this node\'s kernel holds the address now' }),
  }, { additionalProperties: false })),
  peer: Type.Union([Type.Object({
    node: Type.String(),
    priority: Type.Integer(),
    last_advert: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when the peer\'s last VRRP advert reached this node (the kernel notes each one); a backup hears the master\'s every advert interval, a master none (the time is from when the peer was master last); null: none since the table was written whole' }),
  }, { additionalProperties: false }), Type.Null()]),
  sync: Type.Object({
    interface: Type.String(),
    running: Type.Boolean({ description: 'conntrackd runs' }),
    connected: Type.Boolean({ description: 'conntrackd heard its peer (FTFW) since it started, or sent without errors' }),
    sent: Type.Integer({ description: 'state messages sent (multicast/UDP traffic: msgs sent)' }),
    received: Type.Integer({ description: 'state messages received' }),
    errors: Type.Integer({ description: 'send and receive errors, lost sequence' }),
    external_cache: Type.Integer({ description: 'entries of the peer held in conntrackd\'s external cache' }),
    internal_cache: Type.Integer({ description: 'entries of this kernel in conntrackd\'s internal cache' }),
  }, { additionalProperties: false }),
  processes: Type.Object({
    keepalived: Type.Union([Type.Integer(), Type.Null()], { description: 'its pid; null: not running' }),
    conntrackd: Type.Union([Type.Integer(), Type.Null()]),
  }, { additionalProperties: false }),
}, { additionalProperties: false });
export type HaStatus = Static<typeof HaStatusModel>;

/** A change of this node's VRRP state (the notify script's record). */
export interface HaTransition {
  state: HaState;
  at: string;
  previous: HaState;
}

/** The HA part of a data plane. */
export interface HaControl {
  status(): Promise<HaStatus>;
  /** Steps this node down (maintenance on) or lets it serve again. */
  setMaintenance(on: boolean): Promise<void>;
  /** Each change of this node's state, as it is noticed. */
  onTransition(listener: (t: HaTransition) => void): void;
  /**
   * DHCP lease sharing (src/cluster/ha-leases.ts): whether this node runs an enabled pair,
   * whether its dnsmasq serves now (it is master), and its lease file's text.
   */
  leaseState(): { enabled: boolean; serving: boolean; text: string };
  /** Makes `text` (the master's leases) this node's lease file, unless its dnsmasq serves. */
  importLeases(text: string): Promise<void>;
}
