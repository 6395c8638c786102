--[[
  fmt: integers as exact decimal strings.
  Lua numbers are doubles; tostring() prints 14 significant digits, which
  would round wait scores (up to 2^53). '%.0f' is exact for every integer a
  double holds.
]]
local function spool_int(n)
  return string.format('%.0f', n)
end

-- A small count as a string, made once per script call (memo: n -> string):
-- tostring is a printf inside Redis, and a batch's jobs mostly share their counts.
local function spool_count_string(memo, n)
  local s = memo[n]
  if not s then
    s = tostring(n)
    memo[n] = s
  end
  return s
end
