// How instances of a cluster prove themselves to each other (issue 38). A request sent on to
// another node (?node= on /api/sessions and /api/config/impact, src/api/node-forward.ts) used
// to carry the caller's own Authorization header to whatever address fw:{name}:nodes named,
// so anyone who could write to Redis could register a fake node and collect admin tokens.
// Now:
//
// - A node's registration carries a MAC over its id, address and start time, keyed by a key
//   derived from FW_JWT_SECRET ("node-registration"): a node only forwards to a registration
//   whose MAC is right, so a node registered by a Redis writer is refused (409 ERR_SYS_4008).
// - The request sent on never carries the caller's credential. It carries
//   `Authorization: FwNode <payload>.<mac>`: who asks (the caller's account id, credential
//   epoch and role as the first node established them), the method, path and query, the
//   sending and the receiving node, a time and a nonce, MAC'd with the "node-requests" key.
//   The receiving node accepts it only for the routes that forward (bodiless GET and DELETE),
//   within FORWARD_WINDOW_MS of its own clock, once (a nonce seen is refused until the window
//   has passed), addressed to itself, and for an account that still exists in the same
//   credential epoch; the request then runs as that caller with at most that role (its audit
//   entries name the caller).
import { randomBytes } from 'node:crypto';
import { FwError } from '../errors';
import { deriveKey, keyedMac, macMatches } from '../keyed-mac';
import { isRole, type Role } from '../auth/roles';
import type { AuthUser } from '../auth/user';
import type { UserRecord } from '../store/types';
import type { Authenticator } from '../api/server-options';

/** How far a forwarded request's time may be from the receiving node's clock. */
export const FORWARD_WINDOW_MS = 30_000;
/** The Authorization scheme of a request between nodes. */
export const NODE_SCHEME = 'FwNode ';
/**
 * The routes a node credential is good for: those that send a request on. Nothing sent on has
 * a body (the credential covers the method, path and query only): a failover's action travels
 * in its query (src/api/routes/ha.ts).
 */
const FORWARDED_ROUTES = new Set(['GET /api/sessions', 'DELETE /api/sessions', 'GET /api/config/impact', 'GET /api/ha/status', 'POST /api/ha/failover']);

/** What a registration's MAC covers: the node's identity, not its heartbeat. */
export interface RegistrationIdentity {
  id: string;
  address: string;
  startedAt: number;
}

interface ForwardPayload {
  from: string;
  to: string;
  method: string;
  path: string;
  query: string;
  t: number;
  nonce: string;
  username: string;
  accountId: string;
  epoch: number;
  role: Role;
  exp: number;
}

export interface ForwardedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
}

export class NodeAuth {
  private readonly registrationKey: Buffer;
  private readonly requestKey: Buffer;
  /** nonces of requests accepted, until their window has passed (replays are refused) */
  private readonly seen = new Map<string, number>();
  /** this node's id, once it listens (requests to another node are refused) */
  selfId = '';

  constructor(secret: string, private readonly account: (username: string) => Promise<UserRecord | undefined>) {
    this.registrationKey = deriveKey(secret, 'node-registration');
    this.requestKey = deriveKey(secret, 'node-requests');
  }

  registrationMac(r: RegistrationIdentity): string {
    return keyedMac(this.registrationKey, r.id, r.address, String(r.startedAt));
  }

  registrationValid(r: RegistrationIdentity & { mac?: unknown }): boolean {
    return macMatches(this.registrationMac(r), r.mac);
  }

  /** The Authorization header of a request `req` by `user` sent on to node `to`. */
  sign(req: ForwardedRequest, query: string, user: AuthUser, to: string, now = Date.now()): string {
    const payload: ForwardPayload = {
      from: this.selfId, to, method: req.method, path: req.path, query, t: now, nonce: randomBytes(12).toString('base64url'),
      username: user.username, accountId: user.accountId, epoch: user.epoch, role: user.role, exp: Number.isFinite(user.exp) ? user.exp : 0,
    };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${NODE_SCHEME}${body}.${keyedMac(this.requestKey, body)}`;
  }

  /** The caller a node credential stands for, or 401 ERR_SEC_5003 saying why not. */
  async verify(header: string, req: ForwardedRequest, now = Date.now()): Promise<AuthUser> {
    const [body, mac] = header.slice(NODE_SCHEME.length).split('.');
    if (!body || !macMatches(keyedMac(this.requestKey, body), mac)) throw refused('its MAC is not the cluster\'s (FW_JWT_SECRET differs, or it was not made by a node)');
    const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ForwardPayload;
    if (!FORWARDED_ROUTES.has(`${req.method} ${req.path}`)) throw refused(`it is good only for the routes that forward, not ${req.method} ${req.path}`);
    if (p.method !== req.method || p.path !== req.path || p.query !== withoutNode(req.query)) throw refused('it was made for another request');
    if (p.to !== this.selfId) throw refused(`it was made for node "${p.to}", not this one`);
    if (Math.abs(now - p.t) > FORWARD_WINDOW_MS) throw refused(`its time is ${Math.round((now - p.t) / 1000)} s from this node's clock (at most ${FORWARD_WINDOW_MS / 1000} s: are the clocks synchronised?)`);
    this.forgetOld(now);
    if (this.seen.has(p.nonce)) throw refused('it was already used (a replay)');
    this.seen.set(p.nonce, p.t + FORWARD_WINDOW_MS);
    if (!isRole(p.role)) throw refused('no role');
    const account = await this.account(p.username);
    if (!account || account.id !== p.accountId || account.epoch !== p.epoch) throw new FwError('ERR_SEC_5003', 'account no longer exists');
    return { username: p.username, role: p.role, jti: `node:${p.from}:${p.nonce}`, accountId: p.accountId, epoch: p.epoch, exp: p.exp || Infinity };
  }

  private forgetOld(now: number): void {
    for (const [n, until] of this.seen) if (until < now) this.seen.delete(n);
  }
}

/**
 * The daemon's authenticator in a cluster: a node credential (`FwNode ...`) is checked here,
 * any other header by `tokens` (logins and API tokens).
 */
export function nodeAwareAuth(tokens: Authenticator, nodes: NodeAuth): Authenticator {
  return {
    authenticate(header, req) {
      if (!header.startsWith(NODE_SCHEME)) return tokens.authenticate(header, req);
      if (!req) throw refused('no request to check it against');
      return nodes.verify(header, req);
    },
  };
}

/** The query as a forwarded request carries it: without ?node= (the receiver is the node). */
export function withoutNode(query: URLSearchParams): string {
  const q = new URLSearchParams(query);
  q.delete('node');
  return q.toString();
}

function refused(why: string): FwError {
  return new FwError('ERR_SEC_5003', `node credential refused: ${why}`);
}
