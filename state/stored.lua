-- Reading a record's stored forms (state/codec.py) inside a script; put in front of the scripts
-- that read records (state/lua.py, ScriptText.named). A stored record is JSON (its first byte `{`),
-- or a MessagePack array whose first position is its format: 1 and 3, the whole record (3 without
-- its id); 2, a tail, whose other fields are those of the record's read-model row in
-- <prefix>:act:<scope>.

-- The first `n` positions of a MessagePack array of small integers and strings (a record's head).
-- (cmsgpack cannot read the whole array: it holds timestamps, an extension type it does not know.)
local function stored_head(raw, n)
  local pos, out = 1, {}
  local b = string.byte(raw, pos)
  if b >= 0x90 and b <= 0x9f then pos = pos + 1
  elseif b == 0xdc then pos = pos + 3
  elseif b == 0xdd then pos = pos + 5
  else error('a stored record is not an array') end
  for k = 1, n do
    b = string.byte(raw, pos)
    if b < 0x80 then out[k] = b; pos = pos + 1
    elseif b == 0xc0 then out[k] = false; pos = pos + 1  -- nil
    else
      local len, head
      if b >= 0xa0 and b <= 0xbf then len, head = b - 0xa0, 1
      elseif b == 0xd9 then len, head = string.byte(raw, pos + 1), 2
      elseif b == 0xda then len, head = string.byte(raw, pos + 1) * 256 + string.byte(raw, pos + 2), 3
      else error('a stored record\'s head is not small integers and strings') end
      out[k] = string.sub(raw, pos + head, pos + head + len - 1)
      pos = pos + head + len
    end
  end
  return out
end

-- A tail's row (false for any other form): the second half of the record a caller decodes.
-- (Bytes that are no stored form get none either: the caller refuses them, naming the record.)
local function row_of(prefix, id, raw)
  local first = string.byte(raw, 1)
  if not first or not ((first >= 0x90 and first <= 0x9f) or first == 0xdc or first == 0xdd) then return false end
  local head = stored_head(raw, 2)  -- a tail: [2, scope (nil: "global"), subject (nil: "user"), ...]
  if head[1] ~= 2 then return false end
  return redis.call('HGET', prefix .. ':act:' .. (head[2] or 'global'), id) or false
end

-- The slot key ("<subject>|<attribute>|<scope>") of a stored record; `row`: a tail's row.
local function slot_of(raw, row)
  if string.byte(raw, 1) == 123 then
    local r = cjson.decode(raw)
    return r.subject .. '|' .. r.attribute .. '|' .. r.scope
  end
  local head = stored_head(raw, 1)
  if head[1] == 2 then
    head = stored_head(raw, 3)  -- [2, scope, subject]; the attribute is the row's third field
    return (head[3] or 'user') .. '|' .. cjson.decode(row)[3] .. '|' .. (head[2] or 'global')
  end
  if head[1] == 3 then
    head = stored_head(raw, 5)  -- [3, kind, subject, attribute, scope]
    return head[3] .. '|' .. head[4] .. '|' .. head[5]
  end
  head = stored_head(raw, 6)  -- [1, id, kind, subject, attribute, scope]
  return head[4] .. '|' .. head[5] .. '|' .. head[6]
end

-- The user's cold history (state/codec.py, "cold history"): retired records compressed together in
-- <prefix>:cold, their ids listed in the clear (field `ids`, " id id ").
local cold_listed = {}  -- prefix -> set of the ids the cold history lists (read once a call)
local function cold_ids(prefix)
  local set = cold_listed[prefix]
  if set == nil then
    set = {}
    local held = redis.call('HGET', prefix .. ':cold', 'ids')
    if held then for id in string.gmatch(held, '%S+') do set[id] = true end end
    cold_listed[prefix] = set
  end
  return set
end

-- The cold history as one triple {"*", data, " id id "} of the listed ids among `wanted` (nil:
-- every listed id); nil when it lists none of them.
local function cold_triple(prefix, wanted)
  local set, found = cold_ids(prefix), {}
  if wanted == nil then
    for id in pairs(set) do found[#found + 1] = id end
  else
    for _, id in ipairs(wanted) do if set[id] then found[#found + 1] = id end end
  end
  if #found == 0 then return nil end
  return {'*', redis.call('HGET', prefix .. ':cold', 'data'), ' ' .. table.concat(found, ' ') .. ' '}
end
