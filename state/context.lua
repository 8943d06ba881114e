-- One context lookup's read, in one round trip: the rows that can make the request's budget, and
-- what the caller needs to certify that selecting from them equals selecting from every row.
-- KEYS[1] = <prefix>:meta (routes the call: every key of the user shares the hash tag)
-- ARGV = prefix, whole_up_to, per_list, then seven counted lists: scopes, query word keys,
--        request topics (main), request topics (related), the topics and areas rows used only when
--        related by meaning are looked up under, and what such rows are screened with: the
--        request's area probabilities and its topics (none: nothing screened); a count, then that
--        many values. Last, the least area agreement a screened row needs, and up to how many
--        rows used only when related a scope may hold for their ids to be read at once.
-- Every row is returned (mode "whole") when the scopes hold at most whole_up_to rows, or when a
-- scope's index does not cover its read model (written before the index existed). Otherwise
-- (mode "indexed") the lists of the read index are read best-first, a growing step at a time,
-- until per_list rows read are valued above the most any row not read can score (a threshold
-- algorithm); of the rows read that can reach that bound the best 2 x per_list are returned (the
-- bound rising to the best one left out), with every row of a single-valued attribute any of them
-- belongs to (selection shows one value per attribute). A row used only when related by meaning
-- is also on the lists of the topics and areas it is about (ixg, weight 1: how related it is); of
-- the rows those lists give, one whose areas agree with the request's by less than the least
-- agreement and that names or bears on none of the request's topics (ixr) cannot be related to it
-- (relevance.screen_request): it is not returned.
-- Reply: {version, written, mode, total, lists, suppressions (key, value pairs), rows of scope 1, ...}
--   where a scope's rows are one JSON array of its read-model rows (decoded in one call)
--   lists (indexed) = {bound, cuts, sizes}: the most a row left out can score as estimated here
--   ("" when none was left out); per list (the scope's, each word's, each main topic's, each related
--   topic's, each meaning list's) the static value of the last row read where the list was cut (""
--   when read to its end);
--   each query word's row count (its document frequency).
local P = ARGV[1]
local whole_up_to = tonumber(ARGV[2])
local per_list = tonumber(ARGV[3])
local at = 4
local function counted()
  local n = tonumber(ARGV[at])
  local out = {}
  for k = 1, n do out[k] = ARGV[at + k] end
  at = at + n + 1
  return out
end
local scopes, words, mains, related, meant = counted(), counted(), counted(), counted(), counted()
local screen_areas, screen_topics = counted(), counted()
local least_agreement = tonumber(ARGV[at])
local gated_read = tonumber(ARGV[at + 1])

local stamp = redis.call('HMGET', P .. ':meta', 'version', 'written')
-- what selection reads of the suppressions: a value corrected or retracted away is kept out by its
-- record's status, so those (one per correction) never leave the server. apply.lua keeps the others
-- in rsup; a user not written since rsup existed has them filtered out of sup here.
-- As key, value pairs: a suppression's key is part of it (state/codec.py).
local sups = {}
if redis.call('HEXISTS', P .. ':meta', 'rsup') == 1 then
  sups = redis.call('HGETALL', P .. ':rsup')
else
  local all = redis.call('HGETALL', P .. ':sup')
  for i = 1, #all, 2 do
    local raw = all[i + 1]
    if not slot_only(raw) then
      sups[#sups + 1] = all[i]
      sups[#sups + 1] = raw
    end
  end
end

local total, indexed, scope_rows = 0, true, {}
for i, s in ipairs(scopes) do
  local n = redis.call('HLEN', P .. ':act:' .. s)
  scope_rows[i] = n
  total = total + n
  if n > 0 and redis.call('ZCARD', P .. ':ixs:' .. s) ~= n then indexed = false end
end

local reply = {stamp[1] or false, stamp[2] or false, 'whole', total, {}, sups}
if total <= whole_up_to or not indexed then
  for _, s in ipairs(scopes) do
    reply[#reply + 1] = '[' .. table.concat(redis.call('HVALS', P .. ':act:' .. s), ',') .. ']'
  end
  return reply
end
reply[3] = 'indexed'

local chosen = {}
for i = 1, #scopes do chosen[i] = {ids = {}, order = {}} end
local function choose(i, id)
  local c = chosen[i]
  if not c.ids[id] then c.ids[id] = true; c.order[#c.order + 1] = id end
end
-- HMGET in slices: unpack has a limit on how many values it spreads
local function hmget_all(key, ids)
  local out = {}
  for first = 1, #ids, 500 do
    local got = redis.call('HMGET', key, unpack(ids, first, math.min(first + 499, #ids)))
    for k = 1, #got do out[#out + 1] = got[k] end
  end
  return out
end
local function as_text(value) return value == nil and '' or string.format('%.17g', value) end

-- The lists, each read best-first in every scope of the request: the scope's own (relevance 0),
-- one per query word (its weight, as selection computes it), one per request topic the record's attribute is mainly about (relevance 0.5) or
-- related to (0.25). A row's value is its static value plus 0.45 x the larger of its
-- words' weights summed and its topic relevance; the caller recomputes it exactly.
local RELEVANCE_WEIGHT, TOPIC = 0.45, 0.5
local lists = {}
local function add_list(prefix, kind, weight)
  local parts = {}
  for i, s in ipairs(scopes) do
    parts[i] = {key = P .. ':' .. prefix .. s, read = 0, cut = nil, done = scope_rows[i] == 0}
  end
  lists[#lists + 1] = {parts = parts, kind = kind, weight = weight, cut = nil}
end
add_list('ixs:', 'scope', 0)
-- each word's weight as selection.relevance_weights computes it, in the same order of operations
local weights, weight_sum, sizes = {}, 0, {}
local one_row = math.log(1 + (total - 1 + 0.5) / (1 + 0.5))
for k, word in ipairs(words) do
  local size = 0
  for i, s in ipairs(scopes) do
    if scope_rows[i] > 0 then size = size + redis.call('ZCARD', P .. ':ixt:' .. s .. ':' .. word) end
  end
  sizes[k] = size
  local ratio = size > 0 and math.log(1 + (total - size + 0.5) / (size + 0.5)) / one_row or 0
  weights[k] = ratio * ratio
  weight_sum = weight_sum + weights[k]
end
for k = 1, #words do
  add_list('ixt:', 'word', weight_sum > 1 and weights[k] / weight_sum or weights[k])
  -- a word no row holds has nothing to read (a long request names many such words)
  if sizes[k] == 0 then for _, part in ipairs(lists[#lists].parts) do part.done = true end end
end
for _, topic in ipairs(mains) do add_list('ixp:', 'topic', TOPIC) end
for _, topic in ipairs(related) do add_list('ixq:', 'topic', TOPIC / 2) end
-- a row used only when related by meaning: how related, only the caller can tell (weight 1), so
-- these lists are read to their end and every row they give is returned
for _, name in ipairs(meant) do add_list('ixg:', 'topic', 1); lists[#lists].whole = true end
local first_meant = #lists - #meant + 1
-- the key suffix of each list after the scope
local suffixes = {''}
for _, word in ipairs(words) do suffixes[#suffixes + 1] = ':' .. word end
for _, topic in ipairs(mains) do suffixes[#suffixes + 1] = ':' .. topic end
for _, topic in ipairs(related) do suffixes[#suffixes + 1] = ':' .. topic end
for _, name in ipairs(meant) do suffixes[#suffixes + 1] = ':' .. name end
for n, list in ipairs(lists) do
  for _, part in ipairs(list.parts) do part.key = part.key .. suffixes[n] end
end

-- only lists holding rows can add to a row's value: no lookups in the others. The meaning lists
-- are not among them: they hold only rows used only when related by meaning, which they give whole
-- (an ordinary row is on none of them, so looking one up there finds nothing)
local holding = {}
for m, list in ipairs(lists) do
  if m > 1 and m < first_meant then
    local rows = sizes[m - 1]  -- a word's list: counted above; a topic's: counted here
    if rows == nil then
      rows = 0
      for i, part in ipairs(list.parts) do
        if scope_rows[i] > 0 then rows = rows + redis.call('ZCARD', part.key) end
      end
    end
    if rows > 0 then holding[#holding + 1] = m end
  end
end

-- the most a row not read yet can score (selection.left_out_bound, the same reasoning)
local function unread_bound()
  local scope_cut = lists[1].cut
  if scope_cut == nil then return nil end
  local cut_words = {}
  for m = 2, 1 + #words do
    if lists[m].cut ~= nil then cut_words[#cut_words + 1] = lists[m] end
  end
  table.sort(cut_words, function(a, b) return a.cut > b.cut end)
  local worst, weight = scope_cut, 0
  for _, list in ipairs(cut_words) do
    weight = weight + list.weight
    worst = math.max(worst, math.min(scope_cut, list.cut) + RELEVANCE_WEIGHT * weight)
  end
  for m = 2 + #words, #lists do
    local list = lists[m]
    if list.cut ~= nil then worst = math.max(worst, math.min(scope_cut, list.cut) + RELEVANCE_WEIGHT * list.weight) end
  end
  return worst
end

-- Rows read, in arrays (a table per row costs more than the rest of the walk): per scope, id ->
-- row number; per row its scope, id and static value, and its value as far as the lists that gave
-- it tell (`known`: static + 0.45 x the larger of those words' weights summed and those topics'
-- relevance). A list that gave a row holds it (`has`); a list read past the row's static value
-- (each list is in static-value order), or to its end, without giving it does not; any other list
-- may still hold it (open), and only then is it looked up (ZSCORE), and only for a row that could
-- reach the bound.
local seen = {}
for i = 1, #scopes do seen[i] = {} end
local row_scope, row_id, row_static, row_lexical, row_topical, known = {}, {}, {}, {}, {}, {}
local has = {}
for m = 1, #lists do has[m] = {} end
-- the most relevance a row can have: from the lists that hold rows
local most_lexical, most_topical = 0, 0
for _, m in ipairs(holding) do
  if lists[m].kind == 'word' then most_lexical = most_lexical + lists[m].weight
  else most_topical = math.max(most_topical, lists[m].weight) end
end
local most_relevance = math.max(most_lexical, most_topical)

-- a row's exact value: each list that may still hold it is looked up; the words summed in list
-- order, as the caller sums them
local function exact(k)
  local lexical, topical = 0, 0
  for _, m in ipairs(holding) do
    local list = lists[m]
    local on = has[m][k]
    if on == nil then
      local part = list.parts[row_scope[k]]
      if part.done or (part.cut ~= nil and part.cut < row_static[k]) then
        on = false
      else
        on = redis.call('ZSCORE', part.key, row_id[k]) ~= false
      end
      has[m][k] = on
    end
    if on then
      if list.kind == 'word' then lexical = lexical + list.weight
      elseif list.weight > topical then topical = list.weight end
    end
  end
  known[k] = row_static[k] + RELEVANCE_WEIGHT * math.max(lexical, topical)
  return known[k]
end

-- a row used only when related by meaning that no meaning list gave: not related to the request,
-- so it cannot take a place (looked up once per row, only when the request has meaning lists).
-- Which rows of a scope are such rows (ixm) is asked once a scope: a scope with none (most users)
-- costs one ZCARD; with up to gated_read of them their ids are read at once (one ZRANGE, a table
-- lookup a row: a row's ZSCORE costs about as much as reading eight ids); with more, a ZSCORE a row
local gated_ids = {}
local function is_gated(i, id)
  local ids = gated_ids[i]
  if ids == nil then
    local key = P .. ':ixm:' .. scopes[i]
    local n = redis.call('ZCARD', key)
    if n == 0 then
      ids = false
    elseif n <= gated_read then
      ids = {}
      for _, gated in ipairs(redis.call('ZRANGE', key, 0, -1)) do ids[gated] = true end
    else
      ids = true
    end
    gated_ids[i] = ids
  end
  if ids == false then return false end
  if ids == true then return redis.call('ZSCORE', P .. ':ixm:' .. scopes[i], id) ~= false end
  return ids[id] == true
end
local gated_unrelated = {}
-- false: an ordinary row; 'meant': given by a meaning list; true: used only when related by
-- meaning and given by none (not related)
local function gated_state(k)
  if #meant == 0 then return false end
  local known_state = gated_unrelated[k]
  if known_state == nil then
    known_state = false
    for m = first_meant, #lists do
      if has[m][k] then known_state = 'meant'; break end
    end
    if not known_state then
      known_state = is_gated(row_scope[k], row_id[k])
    end
    gated_unrelated[k] = known_state
  end
  return known_state
end
local function unrelated(k) return gated_state(k) == true end

local step = per_list
local bound
while true do
  for m, list in ipairs(lists) do
    local cut = nil
    local weight, is_word = list.weight, list.kind == 'word'
    local gave = has[m]
    for i, part in ipairs(list.parts) do
      if not part.done then
        local got = redis.call('ZREVRANGE', part.key, part.read, list.whole and -1 or part.read + step - 1, 'WITHSCORES')
        part.read = part.read + #got / 2
        local in_scope = seen[i]
        for j = 1, #got, 2 do
          local id = got[j]
          local k = in_scope[id]
          if k == nil then
            k = #row_id + 1
            in_scope[id] = k
            row_scope[k], row_id[k], row_static[k] = i, id, tonumber(got[j + 1])
            row_lexical[k], row_topical[k], known[k] = 0, 0, row_static[k]
          end
          if m > 1 then
            gave[k] = true
            if is_word then row_lexical[k] = row_lexical[k] + weight
            elseif weight > row_topical[k] then row_topical[k] = weight end
            known[k] = row_static[k] + RELEVANCE_WEIGHT * math.max(row_lexical[k], row_topical[k])
          end
        end
        if #got > 0 then part.cut = tonumber(got[#got]) end
        if list.whole or #got / 2 < step then part.done = true; part.cut = nil end
      end
      -- rows this list has not given yet are at most as valuable as its last one read
      if part.cut ~= nil and (cut == nil or part.cut > cut) then cut = part.cut end
    end
    list.cut = cut
  end
  bound = unread_bound()
  if bound == nil then break end
  local above = 0
  for k = 1, #known do
    -- (a row a meaning list gave is valued at the most it could be, not what it is: not counted)
    if known[k] > bound and gated_state(k) == false then above = above + 1 end
  end
  if above >= per_list then break end
  step = step + math.floor(step / 2)
end

-- what was read and can score at least the bound (the rest is covered by it); of those, the best
-- 2 x per_list (and any tied with the last of them) are returned, and the bound rises to the value
-- of the best one left out
local picked, values, meant_rows = {}, {}, {}
for k = 1, #row_id do
  local by_meaning = false
  for m = first_meant, #lists do
    if has[m][k] then by_meaning = true; break end
  end
  if by_meaning then
    meant_rows[#meant_rows + 1] = k
  elseif unrelated(k) then
    -- used only when related by meaning, and on none of the request's lists: not related
  else
    local value = nil
    if bound == nil or known[k] >= bound or row_static[k] + RELEVANCE_WEIGHT * most_relevance >= bound then
      value = exact(k)  -- once per row: the lookups it makes are kept in `has`, the value in `known`
    end
    if value ~= nil and (bound == nil or value >= bound) then
      picked[#picked + 1] = k
      values[#values + 1] = value
    end
  end
end
local keep_rows = 2 * per_list
if #values > keep_rows then
  table.sort(values)  -- numbers only: no comparison function to call from the sort
  local threshold = values[#values - keep_rows + 1]
  local kept, best_left = {}, nil
  for _, k in ipairs(picked) do
    if known[k] >= threshold then kept[#kept + 1] = k
    elseif best_left == nil or known[k] > best_left then best_left = known[k] end
  end
  picked = kept
  if best_left ~= nil then bound = best_left end
end
for _, k in ipairs(picked) do choose(row_scope[k], row_id[k]) end

-- a row a meaning list gave, screened (relevance.screen_request): returned unless its areas agree
-- with the request's by less than the least agreement and it names or bears on none of the
-- request's topics. Its screen (ixr) is a byte giving its count of areas, a byte each (0-255), then
-- its topics; a row with no screen (indexed before it existed), or one of another count of areas,
-- is returned
local asked_topics = {}
local function may_relate(screen)
  if not screen then return true end
  local n = #screen_areas
  if string.byte(screen, 1) ~= n then return true end
  local bytes = {string.byte(screen, 2, n + 1)}
  local agreement = 0
  for a = 1, n do agreement = agreement + bytes[a] * screen_areas[a] end
  if agreement >= least_agreement then return true end
  for topic in string.gmatch(string.sub(screen, n + 2), '%S+') do
    if asked_topics[topic] then return true end
  end
  return false
end
if #screen_areas > 0 and #meant_rows > 0 then
  -- (the request's probabilities divided by 255 here, once: a row's bytes are then multiplied as they are)
  for a = 1, #screen_areas do screen_areas[a] = tonumber(screen_areas[a]) / 255 end
  for _, topic in ipairs(screen_topics) do asked_topics[topic] = true end
  local by_scope = {}
  for _, k in ipairs(meant_rows) do
    local i = row_scope[k]
    by_scope[i] = by_scope[i] or {}
    by_scope[i][#by_scope[i] + 1] = k
  end
  local kept = {}
  for i = 1, #scopes do
    local ks = by_scope[i] or {}
    local ids = {}
    for n, k in ipairs(ks) do ids[n] = row_id[k] end
    if #ids > 0 then
      local screens = hmget_all(P .. ':ixr:' .. scopes[i], ids)
      for n, k in ipairs(ks) do
        if may_relate(screens[n]) then kept[#kept + 1] = k end
      end
    end
  end
  meant_rows = kept
end
for _, k in ipairs(meant_rows) do choose(row_scope[k], row_id[k]) end
local cuts = {}
for m, list in ipairs(lists) do cuts[m] = as_text(list.cut) end
reply[5] = {as_text(bound), cuts, sizes}

-- every row of the single-valued attributes chosen so far, in every scope of the request: a row's
-- unit is the first field of its index entry, a quoted attribute (no quote or backslash can occur
-- in one) or false, read off the entry's text without decoding it
local units, unit_order = {}, {}
for i, s in ipairs(scopes) do
  local ids = chosen[i].order
  if #ids > 0 then
    for _, entry in ipairs(hmget_all(P .. ':ix:' .. s, ids)) do
      local unit = entry and string.match(entry, '^%["([^"]*)"')
      if unit and not units[unit] then units[unit] = true; unit_order[#unit_order + 1] = unit end
    end
  end
end
if #unit_order > 0 then
  for i, s in ipairs(scopes) do
    if scope_rows[i] > 0 then
      for _, raw in ipairs(hmget_all(P .. ':ixu:' .. s, unit_order)) do
        if raw then for _, id in ipairs(cjson.decode(raw)) do choose(i, id) end end
      end
    end
  end
end

for i, s in ipairs(scopes) do
  local ids = chosen[i].order
  local rows = {}
  for _, row in ipairs(hmget_all(P .. ':act:' .. s, ids)) do
    if row then rows[#rows + 1] = row end
  end
  reply[#reply + 1] = '[' .. table.concat(rows, ',') .. ']'
end
return reply
