-- Tables, closures, string patterns and floating point.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local t = {}
for i = 1, 2000 do t[i] = (i * 7919) % 1009 end
table.sort(t)
local sum = 0
for _, v in ipairs(t) do sum = sum + v end
local words = {}
for w in ("the quick brown fox jumps over the lazy dog"):gmatch("%a+") do words[#words + 1] = w:upper() end
print(fib(24), sum, t[1], t[#t], table.concat(words, ","))
print(string.format("%.12f %d %s", math.sqrt(2), #t, tostring(1e300 * 1e10)))
