// The read model's Lua: the read-modify-write steps that must not interleave (an ack racing the
// send that stores its message, unread counters of concurrent messages). The per-message ones run
// in the turn's script batch (infra/script-batch.ts) with the events that announce them; each is written
// so that the common case is as few commands as possible (docs/benchmarks.md, tenth round).
import { RANK_SPAN } from "./acks.ts";
import { HEADER_LUA } from "./doc.ts";

const SPAN = String(RANK_SPAN);

/**
 * A new message. KEYS: doc, chat set, chat ack set, lid set, lid ack set (the chat's again when it
 * carries no other lid), pending ack. ARGV: json, doc ttl ms, sortKey, networkId, rank of its ack,
 * check pending (1|0), then per set (same order) its ttl ms or 0 (set at most hourly: memo.ts).
 *
 * The document is written only if new (`SET NX PX`: one command, its TTL with it); a message
 * recorded again answers where it was stored ({0, chatId, lid, fromMe, sortKey}: the caller
 * updates its content and keeps its place, ack, edit and revocation). A new one answers {1, rank}
 * with the rank it got: an ack that came first (pending) is taken when it is further along.
 */
export const SAVE_MESSAGE = `
local doc, member = KEYS[1], ARGV[4]
if not redis.call('SET', doc, ARGV[1], 'NX', 'PX', ARGV[2]) then
  local chat, lid, fromMe, sk = string.match(redis.call('GETRANGE', doc, 0, 511), ${HEADER_LUA})
  if not chat then return { 0 } end
  return { 0, chat, lid, fromMe, sk }
end
local rank = tonumber(ARGV[5])
if ARGV[6] == '1' then
  local p = tonumber(redis.call('GET', KEYS[6]))
  if p then
    if p > rank then rank = p end
    redis.call('DEL', KEYS[6])
  end
end
local sk = ARGV[3]
local score = string.format('%.0f', rank * ${SPAN} + tonumber(sk))
redis.call('ZADD', KEYS[2], sk, member)
if ARGV[7] ~= '0' then redis.call('PEXPIRE', KEYS[2], ARGV[7]) end
redis.call('ZADD', KEYS[3], score, member)
if ARGV[8] ~= '0' then redis.call('PEXPIRE', KEYS[3], ARGV[8]) end
if KEYS[4] ~= KEYS[2] then
  redis.call('ZADD', KEYS[4], sk, member)
  if ARGV[9] ~= '0' then redis.call('PEXPIRE', KEYS[4], ARGV[9]) end
  redis.call('ZADD', KEYS[5], score, member)
  if ARGV[10] ~= '0' then redis.call('PEXPIRE', KEYS[5], ARGV[10]) end
end
return { 1, rank }
`;

/**
 * An ack of a message whose place the caller knows (memo.ts). KEYS: its ack set, its lid's ack set
 * (or the first again). ARGV: score of the new ack, networkId. Forward only (`GT`); only a stored
 * member moves (`XX`: nothing is created). Answers 1 if the ack moved.
 */
export const ACK_AT = `
local n = redis.call('ZADD', KEYS[1], 'XX', 'GT', 'CH', ARGV[1], ARGV[2])
if KEYS[2] ~= KEYS[1] then redis.call('ZADD', KEYS[2], 'XX', 'GT', 'CH', ARGV[1], ARGV[2]) end
return n
`;

/**
 * An ack of a message found by its document. KEYS: doc, pending ack. ARGV: rank, networkId, the
 * instance's ack set prefix and lid ack set prefix, pending ttl ms (0: no pending, for messages
 * read here). The place comes from the document's first bytes. A message not stored yet keeps the
 * ack pending a while (its store takes it): answers -1; else 1 if the ack moved, 0 if not.
 */
export const ACK_BY_DOC = `
local head = redis.call('GETRANGE', KEYS[1], 0, 511)
if head == '' then
  if ARGV[5] == '0' then return 0 end
  local p = tonumber(redis.call('GET', KEYS[2]))
  if not p or tonumber(ARGV[1]) > p then redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[5]) end
  return -1
end
local chat, lid, fromMe, sk = string.match(head, ${HEADER_LUA})
if not chat then return 0 end
local m = fromMe == 'true' and ':1' or ':0'
local score = string.format('%.0f', tonumber(ARGV[1]) * ${SPAN} + tonumber(sk))
local n = redis.call('ZADD', ARGV[3] .. chat .. m, 'XX', 'GT', 'CH', score, ARGV[2])
if lid ~= 'null' then
  lid = string.sub(lid, 2, -2)
  if lid ~= chat then redis.call('ZADD', ARGV[4] .. lid .. m, 'XX', 'GT', 'CH', score, ARGV[2]) end
end
return n
`;

/**
 * Compare and set of a document (edits, revocations, a message recorded again: rare, decided in
 * Node on the JSON). KEYS: doc. ARGV: the JSON read, the JSON to write. Keeps the TTL. Answers 1,
 * or 0 when the document changed (or went) meanwhile: the caller reads it again.
 */
export const SWAP_DOC = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
`;

/**
 * A message's effect on its chat. KEYS: chat record, chat state, visible chat order, merged chat
 * order, the record and state under the chat's privacy id (or the chat's again). ARGV: create json,
 * lastMessageAt, lastMessageId, last summary json, timestamp, name, sortName, lid, fromMe 1/0,
 * ttl ms, chatId, lid chat id, now (ms), fast (1|0).
 *
 * Fast (the caller knows the chat exists, is not folded, has this name and lid, and had its TTLs
 * refreshed within the hour: memo.ts): when the message is the chat's newest (`ZADD XX GT CH` on
 * the visible order; or of the same millisecond as the last), the state's last message and unread
 * marks are written, nothing read. Any other case takes the full path, which reads the state.
 *
 * Full: the indexed record (every write to it re-indexes it all) is written only when the chat is
 * new (it has no state yet), its name or lid changed, or a lid chat folds into it. The state keeps
 * the name and lid last written to the record to tell. A message older than the last one leaves
 * the last in place. Answers {1, ttlAt, name, lid, merged 1|0} (what the caller may remember), or
 * {2} from the fast path.
 */
export const TOUCH_CHAT = `
local doc, st, visible, mergedOrder, lidDoc, lidSt = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local fromMe = ARGV[9] == '1'
local newest = false
if ARGV[14] == '1' then
  newest = redis.call('ZADD', visible, 'XX', 'GT', 'CH', ARGV[2], ARGV[11]) == 1
  -- The same millisecond as the last one: the later arrival is the last, as on the full path.
  if not newest then newest = tonumber(redis.call('ZSCORE', visible, ARGV[11])) == tonumber(ARGV[2]) end
end
if newest then
  if fromMe then
    redis.call('HSET', st, 'lastMessageAt', ARGV[2], 'timestamp', ARGV[5], 'lastMessageId', ARGV[3], 'lastMessage', ARGV[4], 'unreadCount', '0', 'markedUnread', '0')
  else
    redis.call('HSET', st, 'lastMessageAt', ARGV[2], 'timestamp', ARGV[5], 'lastMessageId', ARGV[3], 'lastMessage', ARGV[4])
    redis.call('HINCRBY', st, 'unreadCount', 1)
  end
  return { 2 }
end
local at = tonumber(ARGV[2])
local name, lid = ARGV[6], ARGV[8]
local ttl = ARGV[10]
local now = tonumber(ARGV[13])
local cur = redis.call('HMGET', st, 'lastMessageAt', 'name', 'lid', 'merged', 'unreadCount', 'markedUnread', 'ttlAt')
if not cur[4] then
  -- No state: a new chat (record and state are made, refreshed and expire together).
  redis.call('JSON.SET', doc, '$', ARGV[1])
  redis.call('HSET', st, 'name', name, 'lid', lid, 'merged', '0', 'unreadCount', '0', 'markedUnread', '0')
  cur = { false, name, lid, '0', '0', '0', false }
else
  local patch = {}
  if name ~= '' and name ~= cur[2] then
    patch[#patch + 1] = '"name":' .. cjson.encode(name)
    patch[#patch + 1] = '"sortName":' .. cjson.encode(ARGV[7])
    redis.call('HSET', st, 'name', name)
    cur[2] = name
  end
  if lid ~= '' and lid ~= cur[3] then
    patch[#patch + 1] = '"lid":' .. cjson.encode(lid)
    redis.call('HSET', st, 'lid', lid)
    cur[3] = lid
  end
  if #patch > 0 then redis.call('JSON.MERGE', doc, '$', '{' .. table.concat(patch, ',') .. '}') end
end
local merged = cur[4] == '1'
local last = tonumber(cur[1])
if not last or at >= last then
  redis.call('HSET', st, 'lastMessageAt', ARGV[2], 'timestamp', ARGV[5], 'lastMessageId', ARGV[3], 'lastMessage', ARGV[4])
  redis.call('ZADD', merged and mergedOrder or visible, at, ARGV[11])
end
if fromMe then
  if cur[5] ~= '0' or cur[6] ~= '0' then redis.call('HSET', st, 'unreadCount', '0', 'markedUnread', '0') end
else
  redis.call('HINCRBY', st, 'unreadCount', 1)
end
-- Retention counts from the last message; refreshing it once an hour is as good and spares four
-- writes per message.
local ttlAt = tonumber(cur[7])
if not ttlAt or now - ttlAt > 3600000 then
  for _, k in ipairs({ doc, st, visible, mergedOrder }) do redis.call('PEXPIRE', k, ttl) end
  redis.call('HSET', st, 'ttlAt', ARGV[13])
  ttlAt = now
end
if lidDoc ~= doc and redis.call('EXISTS', lidDoc) == 1 and redis.call('HGET', lidSt, 'merged') ~= '1' then
  -- The lid chat folds into this one: its unread count joins, its name if this one has none.
  if not fromMe then
    local unread = tonumber(redis.call('HGET', lidSt, 'unreadCount')) or 0
    if unread > 0 then redis.call('HINCRBY', st, 'unreadCount', unread) end
  end
  if redis.call('JSON.GET', doc, '.name') == 'null' then
    local lidName = redis.call('JSON.GET', lidDoc, '.name')
    if lidName ~= 'null' then
      redis.call('JSON.MERGE', doc, '$', '{"name":' .. lidName .. ',"sortName":' .. redis.call('JSON.GET', lidDoc, '.sortName') .. '}')
      redis.call('HSET', st, 'name', cjson.decode(lidName))
      cur[2] = cjson.decode(lidName)
    end
  end
  redis.call('JSON.MERGE', lidDoc, '$', '{"merged":true,"mergedInto":' .. cjson.encode(ARGV[11]) .. '}')
  redis.call('HSET', lidSt, 'merged', '1')
  -- Out of the visible order, into the merged one (with its last message's place).
  local lidAt = redis.call('ZSCORE', visible, ARGV[12])
  redis.call('ZREM', visible, ARGV[12])
  if lidAt then
    redis.call('ZADD', mergedOrder, lidAt, ARGV[12])
    redis.call('PEXPIRE', mergedOrder, ttl)
  end
end
return { 1, ttlAt, cur[2] or '', cur[3] or '', merged and 1 or 0 }
`;

/**
 * KEYS: chat state. ARGV: `read` (nothing unread, not marked) or `unread` (marked, at least one
 * unread; not on a chat folded into another). Only on a chat that exists.
 */
export const MARK_CHAT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] == 'read' then
  redis.call('HSET', KEYS[1], 'unreadCount', '0', 'markedUnread', '0')
elseif redis.call('HGET', KEYS[1], 'merged') == '1' then
  return 0
else
  local unread = tonumber(redis.call('HGET', KEYS[1], 'unreadCount')) or 0
  redis.call('HSET', KEYS[1], 'markedUnread', '1', 'unreadCount', math.max(1, unread))
end
return 1
`;
