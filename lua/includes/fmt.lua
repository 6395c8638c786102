--[[
  fmt: integers as exact decimal strings.
  Lua numbers are doubles; tostring() prints 14 significant digits, which
  would round wait scores (up to 2^53). '%.0f' is exact for every integer a
  double holds.
]]
local function spool_int(n)
  return string.format('%.0f', n)
end
