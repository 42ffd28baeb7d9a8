# Sourced by scripts/run.sh and scripts/portal.sh: starts a demo's own
# witness of the public record and its randomness beacon, each a separate
# process with its own key, and writes the built page's policy naming them
# (scripts/page-policy.sh), so that the page believes these two keys only.
#   start_demo_trust <eldorado binary> <data dir> <game server URL> <beacon address> <witness address>
# Sets witness_key, witness_url (where the server pushes its checkpoints:
# --witness-url), beacon_key and beacon_url, and adds both processes to
# the array `pids` (the caller stops them). Keys and state live in
# <data dir>/witness and <data dir>/beacon: removing it starts both afresh
# (the page's policy is written again at each start).
# In production, real witnesses and a drand relay of the League of
# Entropy's quicknet take their place (docs/OPERATOR.md, "The public record").

# Waits for `pattern` in `log` and prints what follows it on that line.
demo_trust_read() {
    local log=$1 pattern=$2 value=
    for _ in $(seq 100); do
        value=$(sed -n "s/^$pattern//p" "$log")
        [ -n "$value" ] && { echo "$value"; return; }
        sleep 0.1
    done
    echo "demo: nothing like \"$pattern\" in $log:" >&2
    cat "$log" >&2
    return 1
}

start_demo_trust() {
    local bin=$1 data=$2 log_url=$3 beacon_addr=$4 witness_addr=$5
    mkdir -p -m 700 "$data" "$data/witness" "$data/beacon"
    (
        umask 077
        exec "$bin" witness --log "$log_url" --key-file "$data/witness/witness.key" \
            --state "$data/witness" --name eldorado-demo-witness --poll-ms 250 \
            --listen "$witness_addr" \
            >"$data/witness/witness.log" 2>&1
    ) &
    pids+=($!)
    # Rounds every 500 ms, published after each purchase is on the record
    # (docs/PROTOCOL.md §10).
    (
        umask 077
        exec "$bin" beacon --key-file "$data/beacon/beacon.key" --period-ms 500 \
            --listen "$beacon_addr" >"$data/beacon/beacon.log" 2>&1
    ) &
    pids+=($!)
    witness_key=$(demo_trust_read "$data/witness/witness.log" "witness key: ")
    demo_trust_read "$data/beacon/beacon.log" "beacon listening on" >/dev/null
    beacon_key=$(demo_trust_read "$data/beacon/beacon.log" "beacon key: ")
    beacon_url=http://$beacon_addr
    witness_url=http://$witness_addr
    scripts/page-policy.sh --witness "$witness_key" --beacon-key "$beacon_key" --beacon-period-ms 500
}
