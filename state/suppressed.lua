-- Reading a stored suppression inside a script; put in front of the scripts that filter them
-- (state/lua.py, script_source).

-- a suppression of a value corrected or retracted away (selection never reads those), in either
-- of its stored forms (state/codec.py): JSON, or [time, record ids, reason], the reason last as its
-- code (1 or 2, one byte) or spelled out (its string header, then nine letters). Read from the end:
-- cmsgpack does not know the extension type the record ids are stored in.
local function slot_only(raw)
  if string.sub(raw, 1, 1) == '{' then
    local reason = string.match(raw, '"reason":"(%a+)"')
    return reason == 'corrected' or reason == 'retracted'
  end
  local last = string.byte(raw, -1)
  if last == 1 or last == 2 then return true end
  local spelled = string.sub(raw, -10)
  return spelled == '\169corrected' or spelled == '\169retracted'
end
