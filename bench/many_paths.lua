-- wrk script: each request a path drawn at random from the file named by
-- the PATHS environment variable (one path per line), so a query is
-- measured across many arguments, not one answer served again and again.
local paths = {}
for line in io.lines(os.getenv("PATHS")) do paths[#paths + 1] = line end
math.randomseed(os.time())
request = function()
  return wrk.format("GET", paths[math.random(#paths)])
end
