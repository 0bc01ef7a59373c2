// The Lua scripts of the Redis store. Each one is a single atomic step on the keys of one
// firewall (all under one hash tag, so they live in one Redis Cluster slot), and each costs
// one round trip whatever the size of the configuration. Answers are plain strings or
// numbers so that the caller can tell every refusal apart.

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

/** KEYS session, journal: the session record and its journal length. */
export const HEAD = `
return {redis.call('HGETALL', KEYS[1]), redis.call('LLEN', KEYS[2])}`;

/**
 * KEYS session, journal, claim; ARGV sessionId seq entryJson at leaseMs. Appends only at
 * the expected length, never under a commit's claim, and renews the session's idle lease.
 */
export const APPEND = `
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then return 'session' end
if redis.call('EXISTS', KEYS[3]) == 1 then return 'committing' end
local n = redis.call('LLEN', KEYS[2])
if n ~= tonumber(ARGV[2]) then return 'length:' .. n end
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[1], 'lastChangeAt', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 'ok'`;

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
 */
export const CLAIM = `${sessionAtLength(3)}
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  if n > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
end
return 'ok'`;

/** KEYS claim; ARGV claimer. */
export const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * KEYS session, journal, claim, running, history, versionKey, lastCommit;
 * ARGV sessionId length version recordJson metaJson channel eventJson claimer keep versionPrefix.
 * Checks session, journal length and running version, records the version, moves the running
 * pointer, ends the session and publishes the new version: all or nothing. Retention in the
 * same step: while the history holds more than \`keep\` versions (0: keep all), the oldest
 * leaves it and its document key (versionPrefix .. n, under the same hash tag) is deleted, so
 * a reader finds a version whole or not at all.
 */
export const COMMIT = `${sessionAtLength(8)}
local running = tonumber(redis.call('GET', KEYS[4]))
if running ~= tonumber(ARGV[3]) - 1 then return 'version:' .. tostring(running) end
redis.call('SET', KEYS[6], ARGV[4])
redis.call('RPUSH', KEYS[5], ARGV[5])
redis.call('SET', KEYS[4], ARGV[3])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('SET', KEYS[7], ARGV[8] .. '=' .. ARGV[3])
local keep = tonumber(ARGV[9])
if keep > 0 then
  while redis.call('LLEN', KEYS[5]) > keep do
    local pruned = cjson.decode(redis.call('LPOP', KEYS[5]))
    redis.call('DEL', ARGV[10] .. string.format('%d', pruned.version))
  end
end
redis.call('PUBLISH', ARGV[6], ARGV[7])
return 'ok'`;

/** KEYS users; ARGV username channel eventJson. 0 for the last user (nothing changed). */
export const DELETE_USER = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 1 end
if redis.call('HLEN', KEYS[1]) <= 1 then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`;

/** KEYS revokedKey; ARGV ttlMs channel eventJson. */
export const REVOKE = `
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 0`;

/** KEYS one sorted set per counted key; ARGV now windowMs member. */
export const RECORD_FAILURE = `
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], ARGV[1], ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
  redis.call('PEXPIRE', KEYS[i], ARGV[2])
end
return 0`;

/**
 * KEYS audit stream, audit counter; ARGV event JSON, entries kept (0: all). The next audit id
 * and the entry under the stream id "<id>-1", in one step: ids follow the stream's order
 * whichever instance records. The stream is trimmed exactly to the newest entries kept.
 */
export const AUDIT = `
local id = redis.call('INCR', KEYS[2])
if tonumber(ARGV[2]) > 0 then
  redis.call('XADD', KEYS[1], 'MAXLEN', '=', ARGV[2], id .. '-1', 'e', ARGV[1])
else
  redis.call('XADD', KEYS[1], id .. '-1', 'e', ARGV[1])
end
return id`;
