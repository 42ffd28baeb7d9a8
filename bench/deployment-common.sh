# Sourced by the deployment benchmarks, from the repository's root: the
# binary to run, the tests' PostgreSQL, the operator key, and what they
# measure with.

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
# ELDORADO_BIN: a binary already built (to compare two builds), else this
# checkout's release build.
if [ -n "${ELDORADO_BIN:-}" ]; then
    BIN=$ELDORADO_BIN
else
    cargo build --release -q -p eldorado-cli
    BIN="$CARGO_TARGET_DIR/release/eldorado"
fi
ADMIN_URL=$(scripts/test-postgres.sh)
export ELDORADO_OPERATOR_API_KEY=bench-operator-key-0123456789abcdef0123

# The servers started by `serve`, until `stop_servers`.
PIDS=()

# serve NAME PORT DATABASE [FLAG...]: one server, not limited per address
# (wrk is one address), with its log in $WORK/NAME; its pid joins PIDS.
serve() {
    mkdir -p "$WORK/$1"
    "$BIN" serve --addr "127.0.0.1:$2" --data "$WORK/$1" --web . --database "$3" \
        --demo-players-per-minute 100000 --sales-per-second 1000000 --max-in-flight 4096 \
        "${@:4}" > "$WORK/$1/server.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$2/api/config" >/dev/null && return; sleep 0.5; done
    echo "server $1 did not start" >&2; exit 1
}

# stop_servers: every server `serve` started, stopped and waited for.
stop_servers() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    PIDS=()
}

# players ADDR PREFIX FILE: $CONNECTIONS players PREFIX-1… with money,
# opened through the server at ADDR; their session tokens go to FILE.
players() {
    : > "$3"
    local i
    for i in $(seq 1 "$CONNECTIONS"); do
        curl -sf -X POST "http://$1/api/operator/players/$2-$i/credit" \
            -H "Authorization: Bearer $ELDORADO_OPERATOR_API_KEY" \
            -d "{\"amount_cents\":100000000,\"reference\":\"$2-$i\"}" > /dev/null
        curl -sf -X POST "http://$1/api/operator/sessions" -H "Authorization: Bearer $ELDORADO_OPERATOR_API_KEY" \
            -d "{\"player_id\":\"$2-$i\"}" | python3 -c 'import sys,json; print(json.load(sys.stdin)["token"])' >> "$3"
    done
}

# cpu [PID...]: CPU time, in clock ticks, used so far by those processes,
# or by the whole machine (wrk, nginx and PostgreSQL included) without any.
cpu() {
    if [ $# -eq 0 ]; then
        awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat
        return
    fi
    local sum=0 pid
    for pid in "$@"; do sum=$((sum + $(awk '{ print $14 + $15 }' "/proc/$pid/stat"))); done
    echo "$sum"
}
