-- wrk script: each connection is one player (a demo session created by
-- run-server-bench.sh) playing 1 EUR tickets, each with a fresh
-- idempotency key, so every request is a real durable sale.
local tokens = {}
local counter = 0
local thread_id = 0

function setup(thread)
  thread:set("tid", thread_id)
  thread_id = thread_id + 1
end

function init(args)
  for line in io.lines(os.getenv("TOKENS_FILE") or "bench/tokens.txt") do
    tokens[#tokens + 1] = line
  end
  math.randomseed(os.time() + tid * 7919)
end

function request()
  counter = counter + 1
  local token = tokens[(counter % #tokens) + 1]
  local key = string.format("b%d-%d-%d", tid, counter, math.random(1, 1000000000))
  local body = '{"stake_cents":100,"idempotency_key":"' .. key .. '"}'
  return wrk.format("POST", "/api/sales", {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. token,
  }, body)
end

local statuses = {}
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  io.write(string.format("plays/s %.0f  p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms  errors %d (non-2xx %d)\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status))
end
