-- The loop of benchmarks/collatz.mlir in Lua 5.4: N Collatz steps from 27,
-- restarting at 27 whenever the sequence reaches 1. Prints the final value
-- and the ns per iteration.
local n = tonumber(arg[1])
local x = 27
local t0 = os.clock()
for _ = 1, n do
  local nx
  if x % 2 == 0 then nx = x // 2 else nx = 3 * x + 1 end
  if nx == 1 then nx = 27 end
  x = nx
end
local t1 = os.clock()
print(string.format("%d %.1f", x, (t1 - t0) * 1e9 / n))
