// Where a change of this node's HA state goes (issue 39): an event of GET /api/events, an entry
// of the audit trail (and so of syslog, which the audit feeds), the /metrics gauge of the state
// and the count of transitions, and the log.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { AuditTrail } from '../api/audit';
import type { EventInput } from '../events/types';
import { HA_STATES, type HaControl } from './ha-types';

export function reportHaTransitions(ha: HaControl, node: () => string, to: { emit(e: EventInput): void; audit: AuditTrail; registry: Registry; log: Logger }): void {
  const state = new Gauge({ name: 'fwd_ha_state', help: 'This node\'s HA state: 1 for the state it is in (master, backup, fault, disabled)', labelNames: ['state'], registers: [to.registry] });
  const transitions = new Counter({ name: 'fwd_ha_transitions_total', help: 'Changes of this node\'s HA state, by the state entered', labelNames: ['state'], registers: [to.registry] });
  for (const s of HA_STATES) state.set({ state: s }, s === 'disabled' ? 1 : 0);
  ha.onTransition((t) => {
    for (const s of HA_STATES) state.set({ state: s }, s === t.state ? 1 : 0);
    transitions.inc({ state: t.state });
    to.emit({ type: 'ha', node: node(), state: t.state, previous: t.previous, since: t.at });
    to.audit.record({ id: `ha-${Date.now()}` }, 'ha.state', `node ${node()}: ${t.previous} -> ${t.state}`, { state: t.state, previous: t.previous, since: t.at }, { username: 'system' })
      .catch((err: unknown) => to.log.warn({ err: String(err) }, 'HA state change not audited (store unavailable)'));
  });
}
