// What GET /api/status says of the store: its kind, whether it answers, and what is unsafe
// about it (cluster mode: an unauthenticated Redis...). The status route asks this, not the
// store: routes call services only (issue 43 item 12).
import type { AppContext } from './context';

export class StoreHealth {
  // the context, not its fields: storeSecurity is set at listen, after the routes are made
  constructor(private readonly ctx: Pick<AppContext, 'store' | 'storeSecurity'>) {}

  kind(): 'embedded' | 'redis' {
    return this.ctx.store.kind;
  }

  /** whether the store answered lately (no request is sent: the status answers during an outage) */
  reachable(): boolean {
    return this.ctx.store.reachable();
  }

  /** what the start found unsafe about the store; empty when nothing */
  warnings(): string[] {
    return this.ctx.storeSecurity?.warnings() ?? [];
  }
}
