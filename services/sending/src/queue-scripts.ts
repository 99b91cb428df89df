import { QUEUE_HISTORY_MS } from "@gw/contracts";

// The send queue's Lua (queue-store.ts): every transition of an item is one script, so that a
// cancel and a send can never both win.

const ITEM_FIELDS_LUA = `
local function final(status) return status == 'sent' or status == 'failed' or status == 'expired' or status == 'cancelled' end
`;

/** Ends an item: final status, off the pending set, into the history lists. KEYS: settings, pending, item, all, historyPrefix, active. */
const FINISH_BODY = `
local function finish(qid, itemKey, status, now, messageId, err)
  redis.call('HSET', itemKey, 'status', status, 'finishedAt', now)
  if messageId and messageId ~= '' then redis.call('HSET', itemKey, 'messageId', messageId) end
  if err and err ~= '' then redis.call('HSET', itemKey, 'error', err) end
  redis.call('PEXPIRE', itemKey, ${QUEUE_HISTORY_MS})
  redis.call('ZREM', KEYS[2], qid)
  redis.call('ZREM', string.sub(KEYS[2], 1, -8) .. 'expiry', qid)
  local seq = tonumber(redis.call('HGET', itemKey, 'seq') or '0')
  redis.call('ZADD', KEYS[5] .. status, now * 1000 + (seq % 1000), qid)
  redis.call('ZREMRANGEBYSCORE', KEYS[5] .. status, '-inf', (now - ${QUEUE_HISTORY_MS}) * 1000)
  if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('SREM', KEYS[6], ARGV[1]) end
end
`;

export const ENQUEUE = `
-- KEYS: settings, pending, item, all, running, active; ARGV: instanceId, qid, now, max, defaultTtlHours, fields...
-- An id already queued (an Idempotency-Key's retry after its first gateway died): that item.
if redis.call('EXISTS', KEYS[3]) == 1 then return {-2} end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return {-1} end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
local ttl = tonumber(redis.call('HGET', KEYS[1], 'ttlHours') or ARGV[5])
local now = tonumber(ARGV[3])
local expiresAt = now + ttl * 3600000
redis.call('HSET', KEYS[3], 'id', ARGV[2], 'status', 'queued', 'seq', seq, 'createdAt', now, 'expiresAt', expiresAt, 'attempts', 0)
for i = 6, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
redis.call('ZADD', KEYS[2], seq, ARGV[2])
redis.call('ZADD', KEYS[4], seq, ARGV[2])
redis.call('ZADD', string.sub(KEYS[2], 1, -8) .. 'expiry', expiresAt, ARGV[2])
redis.call('SADD', KEYS[6], ARGV[1])
local start = 0
if redis.call('HGET', KEYS[1], 'paused') ~= '1' then
  if redis.call('SET', KEYS[5], '1', 'NX') then start = 1 end
end
return {redis.call('ZCARD', KEYS[2]) - 1, start, expiresAt, seq}
`;

export const NEXT = `
-- KEYS: settings, pending, itemPrefix, all, historyPrefix, active, running; ARGV: instanceId, now, defaultTtl
${ITEM_FIELDS_LUA}
${FINISH_BODY}
local now = tonumber(ARGV[2])
local expired = {}
for _ = 1, 200 do
  local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not head then
    redis.call('DEL', KEYS[7])
    return {'empty', expired}
  end
  if redis.call('HGET', KEYS[1], 'paused') == '1' then
    redis.call('DEL', KEYS[7])
    return {'paused', expired}
  end
  local itemKey = KEYS[3] .. head
  local status = redis.call('HGET', itemKey, 'status')
  if not status or final(status) then
    redis.call('ZREM', KEYS[2], head)
  elseif status == 'queued' and tonumber(redis.call('HGET', itemKey, 'expiresAt')) <= now then
    finish(head, itemKey, 'expired', now, nil, 'expirou antes do envio (ttlHours)')
    table.insert(expired, head)
  else
    return {'item', expired, head}
  end
end
return {'busy', expired}
`;

export const PLAN = `
-- KEYS: item; ARGV: delayMs, typingMs, plannedAt
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'queued' and status ~= 'sending' then return 0 end
redis.call('HSET', KEYS[1], 'delayMs', ARGV[1], 'typingMs', ARGV[2], 'plannedAt', ARGV[3])
return 1
`;

export const BEGIN_SEND = `
-- KEYS: settings, item; ARGV: none
local status = redis.call('HGET', KEYS[2], 'status')
if status ~= 'queued' and status ~= 'sending' then return 'gone' end
if redis.call('HGET', KEYS[1], 'paused') == '1' then return 'paused' end
redis.call('HSET', KEYS[2], 'status', 'sending')
redis.call('HINCRBY', KEYS[2], 'attempts', 1)
return 'ok'
`;

export const REQUEUE = `
-- KEYS: item; ARGV: error
if redis.call('HGET', KEYS[1], 'status') == 'sending' then
  redis.call('HSET', KEYS[1], 'status', 'queued', 'error', ARGV[1])
  return 1
end
return 0
`;

export const FINISH = `
-- KEYS: settings, pending, item, all, historyPrefix, active; ARGV: instanceId, qid, status, now, messageId, error, onlyFrom
${ITEM_FIELDS_LUA}
${FINISH_BODY}
local status = redis.call('HGET', KEYS[3], 'status')
if not status or final(status) then return 0 end
if ARGV[7] ~= '' and status ~= ARGV[7] then return 0 end
finish(ARGV[2], KEYS[3], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6])
return 1
`;

export const CANCEL_ALL = `
-- KEYS: settings, pending, itemPrefix, all, historyPrefix, active; ARGV: instanceId, now
${ITEM_FIELDS_LUA}
${FINISH_BODY}
local now = tonumber(ARGV[2])
local out = {}
for _, qid in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  local itemKey = KEYS[3] .. qid
  if redis.call('HGET', itemKey, 'status') == 'queued' then
    finish(qid, itemKey, 'cancelled', now, nil, nil)
    table.insert(out, qid)
  end
end
return out
`;

export const EXPIRE_DUE = `
-- KEYS: settings, pending, itemPrefix, all, historyPrefix, active; ARGV: instanceId, now
${ITEM_FIELDS_LUA}
${FINISH_BODY}
local now = tonumber(ARGV[2])
local out = {}
local expiryKey = string.sub(KEYS[2], 1, -8) .. 'expiry'
for _, qid in ipairs(redis.call('ZRANGEBYSCORE', expiryKey, '-inf', now, 'LIMIT', 0, 1000)) do
  local itemKey = KEYS[3] .. qid
  local status = redis.call('HGET', itemKey, 'status')
  if status == 'queued' then
    finish(qid, itemKey, 'expired', now, nil, 'expirou antes do envio (ttlHours)')
    table.insert(out, qid)
  elseif status ~= 'sending' then
    redis.call('ZREM', expiryKey, qid)
  end
end
return out
`;
