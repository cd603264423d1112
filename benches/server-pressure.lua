-- wrk script for the soak of benches/server-pressure.sh: every request picks
-- a format, a count from 1 to 10,000 (log-uniform, so small and large
-- responses both occur often) and gzip on or off. Any non-2xx response is
-- counted by wrk and printed as "Non-2xx or 3xx responses".
local formats = { "json", "msgpack", "protobuf", "avro", "flatbuffers" }

function init(args)
    math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 1000)
end

function request()
    local format = formats[math.random(#formats)]
    local count = math.floor(10 ^ (math.random() * 4))
    if count > 10000 then count = 10000 end
    local compression = (math.random(2) == 1) and "gzip" or "none"
    local path = "/catalog/" .. format .. "?count=" .. count .. "&compression=" .. compression
    return wrk.format("GET", path)
end
