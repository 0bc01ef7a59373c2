// The Lua scripts that read and complete versions stored as deltas (src/store/version-deltas.ts):
// a version's record is whole at versionPrefix .. n (a keyframe) or a delta at deltaPrefix .. n
// (the commit script, scripts.ts COMMIT, writes either).

/**
 * KEYS history; ARGV versionPrefix deltaPrefix n. The keyframe version n is read from (n when
 * it is whole; else the highest keyframe below it, every version in between having its
 * delta), or false when n is not a kept version (pruned, or not committed): a base kept for a
 * kept version is never read as a version of its own.
 */
export const VERSION_BASE = `
local first = redis.call('LINDEX', KEYS[1], 0)
if not first then return false end
local n = tonumber(ARGV[3])
if n < cjson.decode(first).version or n > cjson.decode(redis.call('LINDEX', KEYS[1], -1)).version then return false end
local v = n
while redis.call('EXISTS', ARGV[1] .. string.format('%d', v)) == 0 do
  if redis.call('EXISTS', ARGV[2] .. string.format('%d', v)) == 0 or v == 0 then return false end
  v = v - 1
end
return v`;

/**
 * KEYS history, versionKey, deltaKey; ARGV n time recordJson. Writes version n whole beside
 * its delta, when it is still that commit (its time in the history) and kept: after a
 * failover another commit may hold the number, and a pruned one must not come back. 1 when written.
 */
export const KEYFRAME = `
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
local first = redis.call('LINDEX', KEYS[1], 0)
if not first then return 0 end
local i = tonumber(ARGV[1]) - cjson.decode(first).version
if i < 0 then return 0 end
local m = redis.call('LINDEX', KEYS[1], i)
if not m or string.format('%d', cjson.decode(m).time) ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[2], ARGV[3])
return 1`;
