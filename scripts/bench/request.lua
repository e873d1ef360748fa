-- The request wrk sends for a LoadRequest of `make bench` (scripts/bench/load.ts), its arguments after the URL:
--   <method> <body, or empty> [<key prefix> <path>...]
-- Without a key prefix every request is the same, formatted once. With one, each request carries a fresh
-- Idempotency-Key (the prefix and a count) and takes the paths in turn; `request` is defined only then, so that wrk
-- formats the plain request once rather than calling into Lua for each.
local prefix
local paths = {}
local sent = 0

function init(args)
  wrk.method = args[1]
  if args[2] ~= "" then
    wrk.body = args[2]
  end
  prefix = args[3]
  for i = 4, #args do
    paths[#paths + 1] = args[i]
  end
  if prefix then
    request = function()
      sent = sent + 1
      wrk.headers["Idempotency-Key"] = prefix .. sent
      return wrk.format(nil, paths[(sent - 1) % #paths + 1])
    end
  end
end
