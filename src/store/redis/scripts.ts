// The Lua scripts of the Redis store. Each one is a single atomic step on the keys of one
// firewall (all under one hash tag, so they live in one Redis Cluster slot), and each costs
// one round trip whatever the size of the configuration. Answers are plain strings or
// numbers so that the caller can tell every refusal apart.
import type Redis from 'ioredis';
import { KEYFRAME, VERSION_BASE } from './version-scripts';

/** First start of a firewall: version 0 becomes running unless something already is. */
export const INIT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[3], ARGV[1])
redis.call('DEL', KEYS[2])
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('SET', KEYS[1], '0')
return 1`;

/**
 * KEYS session, journal, running; ARGV id owner startedAt lastChangeAt baseVersion leaseMs.
 * The active session's record when there is one; 'stale' when the base is no longer running.
 */
export const BEGIN = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HGETALL', KEYS[1]) end
if tonumber(redis.call('GET', KEYS[3])) ~= tonumber(ARGV[5]) then return 'stale' end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'owner', ARGV[2], 'startedAt', ARGV[3], 'lastChangeAt', ARGV[4], 'baseVersion', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 0`;

/**
 * KEYS session, journal; ARGV [from [limit]]: the session record, its journal length, and with
 * `from` the journal entries from there on (a catch-up in one round trip). With `limit`,
 * entries of more than `limit` bytes in all are not sent: their byte count comes instead,
 * and the caller fetches them with RANGE on its bulk lane (bulk-lane.ts).
 */
export const HEAD = `
local entries = {}
if ARGV[1] then
  entries = redis.call('LRANGE', KEYS[2], ARGV[1], -1)
  if ARGV[2] then
    local bytes = 0
    for i = 1, #entries do bytes = bytes + #entries[i] end
    if bytes > tonumber(ARGV[2]) then entries = bytes end
  end
end
return {redis.call('HGETALL', KEYS[1]), redis.call('LLEN', KEYS[2]), entries}`;

/** The Lua function pieces(s, n): `s` as strings of at most `n` bytes (see GET_PIECES). */
const PIECES = `
local function pieces(s, n)
  local out = {}
  for i = 1, #s, n do out[#out + 1] = string.sub(s, i, i + n - 1) end
  return out
end`;

/**
 * KEYS session, journal; ARGV sessionId from to piece: the entries from..to, each as pieces of
 * at most `piece` bytes (GET_PIECES says why); false unless the session is that one.
 */
export const RANGE = `${PIECES}
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then return false end
local out = {}
for _, e in ipairs(redis.call('LRANGE', KEYS[2], ARGV[2], ARGV[3])) do out[#out + 1] = pieces(e, tonumber(ARGV[4])) end
return out`;

/**
 * KEYS key; ARGV piece: the string value as pieces of at most `piece` bytes (false: none). The
 * client's reply parser keeps a buffer three times the largest bulk string it has read, for
 * good: one 13 MB reply left 39 MB behind, pieces of 1 MiB leave under 10.
 */
export const GET_PIECES = `${PIECES}
local v = redis.call('GET', KEYS[1])
if not v then return false end
return pieces(v, tonumber(ARGV[1]))`;

/** KEYS key; ARGV limit: the string value, or its length when it has more than `limit` bytes (false: none). */
export const GET_SMALL = `
local n = redis.call('STRLEN', KEYS[1])
if n > tonumber(ARGV[1]) then return n end
return redis.call('GET', KEYS[1])`;

/**
 * KEYS session, journal, claim, writers; ARGV sessionId expected at leaseMs unknownFrom tag
 * nkeys key... entryJson... Appends the entries (one group of one instance) at the journal's
 * end and answers the position of the first, or a refusal: another session, a commit's claim,
 * or 'length:n' when the group may depend on an entry its instance has not seen.
 *
 * `expected` is the length the instance believes the journal has, `unknownFrom` the first
 * position it may lack (positions from there on are its own, or other instances' it has not
 * applied), `tag` its own mark. `writers` holds, for the session (field '#') and the journal
 * length it has recorded (field 'n'), the last position and tag that touched each footprint
 * key (src/config/footprint.ts) and '*' for changes that may touch anything. A group with keys (nkeys >= 0) lands after unseen entries
 * of other instances when none of them touched its keys or was a '*'; a group with nkeys -1
 * lands only when nothing is unseen. So each change is accepted exactly when it would be
 * accepted alone after every entry before it.
 */
export const APPEND = `
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then return 'session' end
if redis.call('EXISTS', KEYS[3]) == 1 then return 'committing' end
local n = redis.call('LLEN', KEYS[2])
local expected, unknown, tag, nk = tonumber(ARGV[2]), tonumber(ARGV[5]), ARGV[6], tonumber(ARGV[7])
if redis.call('HGET', KEYS[4], '#') ~= ARGV[1] then
  -- another session's, or expired under a long commit claim
  redis.call('DEL', KEYS[4])
  redis.call('HSET', KEYS[4], '#', ARGV[1], 'n', 0)
end
if tonumber(redis.call('HGET', KEYS[4], 'n')) ~= n then
  -- entries appended without a record (writers lost, or an older daemon's plain append during
  -- a rolling upgrade): what touched them is not known, so they count as touching anything
  redis.call('HSET', KEYS[4], '*', (n - 1) .. '|')
end
if n < expected then return 'length:' .. n end
if n > expected or unknown < expected then
  if nk < 0 then return 'length:' .. n end
  local function unseen(key)
    local w = redis.call('HGET', KEYS[4], key)
    if not w then return false end
    local sep = string.find(w, '|', 1, true)
    return tonumber(string.sub(w, 1, sep - 1)) >= unknown and string.sub(w, sep + 1) ~= tag
  end
  if unseen('*') then return 'length:' .. n end
  for i = 1, nk do
    if unseen(ARGV[7 + i]) then return 'length:' .. n end
  end
end
redis.call('RPUSH', KEYS[2], unpack(ARGV, 8 + math.max(nk, 0)))
local mark = n .. '|' .. tag
if nk < 0 then redis.call('HSET', KEYS[4], '*', mark) end
for i = 1, nk do redis.call('HSET', KEYS[4], ARGV[7 + i], mark) end
redis.call('HSET', KEYS[4], 'n', redis.call('LLEN', KEYS[2]))
redis.call('HSET', KEYS[1], 'lastChangeAt', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[4], ARGV[4])
return n`;

/**
 * KEYS session, journal, claim; ARGV[1] sessionId, ARGV[2] journal length. Refuses unless the
 * session is the one named, its journal has that length, and no other commit (the claimer in
 * ARGV[claimerArg]) holds it.
 */
function sessionAtLength(claimerArg: number): string {
  return `
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then return 'session' end
local c = redis.call('GET', KEYS[3])
if c and c ~= ARGV[${claimerArg}] then return 'committing' end
local n = redis.call('LLEN', KEYS[2])
if n ~= tonumber(ARGV[2]) then return 'length:' .. n end`;
}

/** KEYS session, journal, claim; ARGV sessionId. */
export const END = `
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
return 1`;

/**
 * KEYS session, journal, claim; ARGV sessionId length claimer leaseMs. The session's lease is
 * stretched to cover the claim, so a long compile cannot see its session expire under it.
 * Answers {'ok', digest}: the digest of the journal claimed (journal-digest.ts: SHA-1 of its
 * lines' SHA-1s), which no append can change while the claim holds.
 */
export const CLAIM = `${sessionAtLength(3)}
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  if n > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
end
local digests = {}
for i, line in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do digests[i] = redis.sha1hex(line) end
return {'ok', redis.sha1hex(table.concat(digests))}`;

/**
 * KEYS claim, and the commit queue's wait, paused, prioritized and delayed keys; ARGV the
 * queue's job key prefix. Drops a commit claim that no commit job can still act on (issue 38
 * item 8): its job (commit-<session>-<length>, src/workers/commit-queue.ts) holds no lock (no
 * live worker runs it) and waits for none (not queued). Left by a job that failed while its
 * worker could not reach Redis to release it, or whose worker was cut off mid-job (BullMQ
 * would hand it on only after its lock lapsed and the stall check ran): the session stayed
 * claimed, every change 409, for up to the claim's lease. Answers 'dropped:<job>', or why
 * not: 'none' (no claim), 'nojob:<job>' (a claim made without the queue, as the store's
 * contract tests do: left to its owner), 'locked:<job>' (a live worker runs it), 'queued:<job>'.
 */
export const RELEASE_STALE = `
local c = redis.call('GET', KEYS[1])
if not c then return 'none' end
local sid, len = string.match(c, '^(.+):(%d+)$')
if not sid then return 'none' end
local id = 'commit-' .. sid .. '-' .. len
if redis.call('EXISTS', ARGV[1] .. id) == 0 then return 'nojob:' .. id end
if redis.call('EXISTS', ARGV[1] .. id .. ':lock') == 1 then return 'locked:' .. id end
if redis.call('LPOS', KEYS[2], id) or redis.call('LPOS', KEYS[3], id) then return 'queued:' .. id end
if redis.call('ZSCORE', KEYS[4], id) or redis.call('ZSCORE', KEYS[5], id) then return 'queued:' .. id end
redis.call('DEL', KEYS[1])
return 'dropped:' .. id`;

/** KEYS claim; ARGV claimer. */
export const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * KEYS session, journal, claim, running, history, versionKey, lastCommit; ARGV sessionId
 * length version recordJson metaJson channel eventJson claimer keep versionPrefix
 * deltaPrefix baseTime baseAuthor. Checks session, journal length and running version,
 * records the version, moves the running pointer, ends the session and publishes the new
 * version: all or nothing. With baseTime (a delta record, at deltaPrefix .. n) the running
 * commit must be that base ('base' otherwise: the caller writes the version whole). Retention
 * in the same step: while the history holds more than \`keep\` versions (0: keep all), the
 * oldest leaves it; the records below the keyframe the oldest kept version is read from are
 * deleted (lowest first, so those left are contiguous), so a reader finds a kept version
 * whole or not at all. Answers 'ok:' .. the deltas since the last keyframe (this one included).
 */
export const COMMIT = `${sessionAtLength(8)}
local running = tonumber(redis.call('GET', KEYS[4]))
if running ~= tonumber(ARGV[3]) - 1 then return 'version:' .. tostring(running) end
local delta = ARGV[12] ~= ''
local num = function(n) return string.format('%d', n) end
if delta then
  local last = cjson.decode(redis.call('LINDEX', KEYS[5], -1))
  if last.version ~= running or num(last.time) ~= ARGV[12] or last.author ~= ARGV[13] then return 'base' end
end
redis.call('SET', KEYS[6], ARGV[4])
redis.call('RPUSH', KEYS[5], ARGV[5])
redis.call('SET', KEYS[4], ARGV[3])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('SET', KEYS[7], ARGV[8] .. '=' .. ARGV[3])
local keep = tonumber(ARGV[9])
if keep > 0 then
  while redis.call('LLEN', KEYS[5]) > keep do redis.call('LPOP', KEYS[5]) end
  local needed = cjson.decode(redis.call('LINDEX', KEYS[5], 0)).version
  while needed > 0 and redis.call('EXISTS', ARGV[10] .. num(needed)) == 0 do needed = needed - 1 end
  local d = needed - 1
  while d >= 0 and redis.call('DEL', ARGV[10] .. num(d), ARGV[11] .. num(d)) > 0 do d = d - 1 end
end
local chain = 0
if delta then
  local v = tonumber(ARGV[3])
  while v > 0 and chain < 1000 and redis.call('EXISTS', ARGV[10] .. num(v)) == 0 do chain = chain + 1; v = v - 1 end
end
redis.call('PUBLISH', ARGV[6], ARGV[7])
return 'ok:' .. chain`;

/**
 * lastAdmin(users, name): whether that user is the only admin. A user stored without a role
 * (before roles existed) is an admin, as userOf reads it.
 */
const LAST_ADMIN = `
local function isAdmin(json)
  local role = cjson.decode(json).role
  return role == nil or role == 'admin'
end
local function lastAdmin(users, name)
  local own = redis.call('HGET', users, name)
  if not own or not isAdmin(own) then return false end
  local all = redis.call('HGETALL', users)
  for i = 1, #all, 2 do
    if all[i] ~= name and isAdmin(all[i + 1]) then return false end
  end
  return true
end
`;

/**
 * KEYS users; ARGV username userJson role channel eventJson expect id createdAt. 0 when it would
 * demote the last admin. expect 'new': 'exists' when the name is taken; 'same': 'changed' unless
 * the name holds the account of that id (one stored without an id: of that creation time), as
 * replacingRefusal decides; 'any': no check.
 */
export const PUT_USER = `${LAST_ADMIN}
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[6] == 'new' and stored then return 'exists' end
if ARGV[6] == 'same' then
  if not stored then return 'changed' end
  local cur = cjson.decode(stored)
  if cur.id ~= nil then
    if cur.id ~= ARGV[7] then return 'changed' end
  elseif cur.createdAt ~= tonumber(ARGV[8]) then return 'changed' end
end
if ARGV[3] ~= 'admin' and lastAdmin(KEYS[1], ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1`;

/**
 * KEYS users, apiTokens, apiTokenNames, apiTokenUsed; ARGV username channel eventJson. The user
 * and its API tokens; 0 for the last admin (nothing changed).
 */
export const DELETE_USER = `${LAST_ADMIN}
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 1 end
if lastAdmin(KEYS[1], ARGV[1]) then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
local tokens = redis.call('HGETALL', KEYS[2])
for i = 1, #tokens, 2 do
  local t = cjson.decode(tokens[i + 1])
  if t.owner == ARGV[1] then
    redis.call('HDEL', KEYS[2], tokens[i])
    redis.call('HDEL', KEYS[3], t.owner .. '/' .. t.name)
    redis.call('HDEL', KEYS[4], tokens[i])
  end
end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`;

/** KEYS apiTokens, apiTokenNames; ARGV hash owner/name tokenJson. 0 when the name is taken. */
export const ADD_API_TOKEN = `
if redis.call('HSETNX', KEYS[2], ARGV[2], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1`;

/**
 * KEYS apiTokens, apiTokenNames, apiTokenUsed; ARGV owner/name channel. The deleted token's
 * JSON (false: none); its revocation published to every instance.
 */
export const DELETE_API_TOKEN = `
local hash = redis.call('HGET', KEYS[2], ARGV[1])
if not hash then return false end
local json = redis.call('HGET', KEYS[1], hash)
redis.call('HDEL', KEYS[1], hash)
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], hash)
redis.call('PUBLISH', ARGV[2], cjson.encode({ type = 'revoked', jti = hash }))
return json`;

/** KEYS apiTokens, apiTokenUsed; ARGV hash1 ms1 hash2 ms2 ...: later times of tokens that still exist. */
export const TOUCH_API_TOKENS = `
for i = 1, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then
    local old = tonumber(redis.call('HGET', KEYS[2], ARGV[i]) or '0')
    if old < tonumber(ARGV[i + 1]) then redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
  end
end
return 0`;

/** KEYS revokedKey; ARGV ttlMs channel eventJson. */
export const REVOKE = `
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 0`;

/** KEYS the sorted set of a counted key (its failure times), kept windowMs; ARGV now windowMs member. */
export const RECORD_FAILURE = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 0`;

/**
 * KEYS audit stream, failed-login stream, audit counter; ARGV entries kept of each (0: all),
 * then a kind ("login-failure" or "") and an event JSON per entry. The next audit id for each
 * entry, in order, and the entry under the stream id "<id>-1" in the stream of its kind, in one
 * step: ids follow the order recorded whichever instance records, across both streams. Each
 * stream is trimmed exactly to the newest entries it keeps, so failed logins never push other
 * entries out. Answers the last id.
 */
export const AUDIT = `
local id = 0
for i = 3, #ARGV, 2 do
  id = redis.call('INCR', KEYS[3])
  local stream, keep = KEYS[1], tonumber(ARGV[1])
  if ARGV[i] == 'login-failure' then stream, keep = KEYS[2], tonumber(ARGV[2]) end
  if keep > 0 then
    redis.call('XADD', stream, 'MAXLEN', '=', keep, id .. '-1', 'e', ARGV[i + 1])
  else
    redis.call('XADD', stream, id .. '-1', 'e', ARGV[i + 1])
  end
end
return id`;

/** KEYS confirmed, revertClaim; ARGV version. 'reverting' while the version's revert is claimed. */
export const CONFIRM = `
if redis.call('GET', KEYS[2]) == ARGV[1] then return 'reverting' end
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 'ok'`;

/** KEYS confirmed, revertClaim; ARGV version leaseMs. 'confirmed', 'busy' (another claim) or 'ok'. */
export const CLAIM_REVERT = `
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[1]) then return 'confirmed' end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 'ok' end
return 'busy'`;

/**
 * KEYS seq, stream; ARGV eventJsonWithoutId maxLen channel. The next event id, the event kept
 * in the stream under "<id>-0" (trimmed to maxLen: events are few, exact trimming is cheap) and published to every instance;
 * one script, so ids are published in order.
 */
export const EVENT = `
local id = redis.call('INCR', KEYS[1])
local text = '{"id":' .. id .. ',' .. string.sub(ARGV[1], 2)
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[2], id .. '-0', 'e', text)
redis.call('PUBLISH', ARGV[3], '{"type":"event","event":' .. text .. '}')
return id`;
/**
 * KEYS idempotency key; ARGV claimJson leaseMs. What the key holds, or nil after claiming it
 * (the claim lapses after leaseMs unless an answer replaces it).
 */
export const IDEM_CLAIM = `
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;

/** KEYS idempotency key; ARGV claimJson. Drops the claim if it is still that one (no answer). */
export const IDEM_RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

export type ScriptName = 'fwInit' | 'fwBegin' | 'fwHead' | 'fwRange' | 'fwGetSmall' | 'fwGetPieces' | 'fwAppend' | 'fwEnd' | 'fwClaim' | 'fwRelease' | 'fwReleaseStale' | 'fwCommit' | 'fwPutUser' | 'fwDeleteUser' | 'fwAddApiToken' | 'fwDeleteApiToken' | 'fwTouchApiTokens' | 'fwRevoke' | 'fwRecordFailure' | 'fwAudit'
  | 'fwIdemClaim' | 'fwIdemRelease' | 'fwConfirm' | 'fwClaimRevert' | 'fwEvent' | 'fwVersionBase' | 'fwKeyframe';
/** Each script also as name + 'Buffer' (ioredis defines both): its strings answered as Buffers. */
export type Scripted = Redis & Record<ScriptName | `${ScriptName}Buffer`, (...args: (string | number)[]) => Promise<unknown>>;

export const SCRIPTS: Record<ScriptName, { keys: number; lua: string }> = {
  fwConfirm: { keys: 2, lua: CONFIRM },
  fwClaimRevert: { keys: 2, lua: CLAIM_REVERT },
  fwEvent: { keys: 2, lua: EVENT },
  fwInit: { keys: 3, lua: INIT },
  fwBegin: { keys: 3, lua: BEGIN },
  fwHead: { keys: 2, lua: HEAD },
  fwRange: { keys: 2, lua: RANGE },
  fwGetSmall: { keys: 1, lua: GET_SMALL },
  fwGetPieces: { keys: 1, lua: GET_PIECES },
  fwAppend: { keys: 4, lua: APPEND },
  fwEnd: { keys: 3, lua: END },
  fwClaim: { keys: 3, lua: CLAIM },
  fwRelease: { keys: 1, lua: RELEASE },
  fwReleaseStale: { keys: 5, lua: RELEASE_STALE },
  fwCommit: { keys: 7, lua: COMMIT },
  fwPutUser: { keys: 1, lua: PUT_USER },
  fwDeleteUser: { keys: 4, lua: DELETE_USER },
  fwAddApiToken: { keys: 2, lua: ADD_API_TOKEN },
  fwDeleteApiToken: { keys: 3, lua: DELETE_API_TOKEN },
  fwTouchApiTokens: { keys: 2, lua: TOUCH_API_TOKENS },
  fwRevoke: { keys: 1, lua: REVOKE },
  fwRecordFailure: { keys: 1, lua: RECORD_FAILURE },
  fwAudit: { keys: 3, lua: AUDIT },
  fwIdemClaim: { keys: 1, lua: IDEM_CLAIM },
  fwIdemRelease: { keys: 1, lua: IDEM_RELEASE },
  fwVersionBase: { keys: 1, lua: VERSION_BASE },
  fwKeyframe: { keys: 3, lua: KEYFRAME },
};

/** `conn` with every script defined as a command of its own (EVALSHA, loaded on first use). */
export function scripted(conn: Redis): Scripted {
  for (const [name, s] of Object.entries(SCRIPTS)) conn.defineCommand(name, { numberOfKeys: s.keys, lua: s.lua });
  return conn as Scripted;
}
