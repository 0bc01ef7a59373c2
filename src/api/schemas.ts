// Schemas of the answers that are not read models of configuration objects: the message of a
// changing operation, the error body, and the query parameters several routes share. The
// OpenAPI document is built from these and from the schemas of src/config (src/api/openapi.ts).
import { Type, type TSchema } from '@sinclair/typebox';
import { ERRORS, type ErrorCode } from '../errors';
import { oneOf } from '../config/render/objects';
import type { QueryDoc } from './http';

/** A changing operation's answer: `message` and, for some, more string fields (id, version, warnings). */
export const MessageReply = Type.Object(
  {
    message: Type.String(),
    // the seed's wire format (contract.md section 1): numbers written as strings of digits
    id: Type.Optional(Type.String({ pattern: '^[1-9][0-9]*$', description: 'a create that assigns an id (policy, NAT rule, route): the id, as a string' })),
    version: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'a commit, a confirm: the version, as a string' })),
  },
  { additionalProperties: Type.String(), description: 'what was done; some operations add string fields (id, version, warnings)' },
);

/** The error body of the contract, its code limited to `codes`. */
export function errorBody(codes: readonly ErrorCode[]): TSchema {
  return Type.Object(
    {
      code: oneOf(codes),
      message: Type.String({ description: 'the catalogue message of the code' }),
      details: Type.String({ description: 'what exactly was wrong (field, value, owner, ...)' }),
    },
    { additionalProperties: false },
  );
}

/** The catalogued codes answered with `status`. */
export function codesOf(status: number): ErrorCode[] {
  return (Object.keys(ERRORS) as ErrorCode[]).filter((c) => ERRORS[c].status === status);
}

/** Every status some catalogued code has. */
export function errorStatuses(): number[] {
  return [...new Set(Object.values(ERRORS).map((e) => e.status))].sort((a, b) => a - b);
}

/** A query's boolean: written true or false (OpenAPI serializes a boolean so); the handler refuses another word (400 ERR_NET_1005). */
export const QueryBool = Type.Boolean();

/** ?config= of reads and evaluations: the running version (default) or the candidate. */
export const configQueryDoc: Record<string, QueryDoc> = {
  config: {
    schema: oneOf(['running', 'candidate'] as const),
    description: 'which configuration to answer from: the running version (default) or the session\'s candidate',
  },
};

/** An ISO 8601 time in UTC, as every time in the API is written. */
export const IsoTime = Type.String({ format: 'date-time' });

/** GET /api/config/session and the session of GET /api/status (ConfigService.info). */
export const SessionModel = Type.Object({
  active: Type.Boolean(),
  owner: Type.Union([Type.String(), Type.Null()]),
  started_at: Type.Union([IsoTime, Type.Null()]),
  expires_at: Type.Union([IsoTime, Type.Null()]),
  changes: Type.Integer({ minimum: 0 }),
  pending_confirm: Type.Union([Type.Object({
    version: Type.Integer({ minimum: 1 }),
    author: Type.String(),
    deadline: Type.String({ format: 'date-time', description: 'unless confirmed by then, the daemon restores version - 1' }),
  }, { additionalProperties: false }), Type.Null()], { description: 'a commit confirmed waiting for POST /api/config/confirm (independent of the session)' }),
}, { additionalProperties: false });

/** What a data plane holds: GET /api/status and each node of GET /api/cluster/nodes. */
export const DataPlaneStatusModel = Type.Object({
  mode: oneOf(['none', 'linux'] as const),
  netns: Type.Union([Type.String(), Type.Null()]),
  applied_version: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'the version the kernel holds' }),
  applied_at: Type.Union([IsoTime, Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()], { description: 'the last apply\'s failure; the kernel kept applied_version' }),
}, { additionalProperties: false });
