# tmux.sh — drive an interactive hew inside tmux from an end-to-end test (bash): read the
# pane as text, wait for a pattern on it, send keys, stop. The test names its tmux server
# in $sock and starts a session "t" on it (each test its own way: size, flags). How the
# pane is read: TMUX_SCROLLBACK lines of history (default 200), and TMUX_JOIN=1 joins the
# lines the terminal wrapped (capture-pane -J). Waits poll every 50 ms; their limits are
# safety nets, never timings under test.

screen() { tmux -L "$sock" capture-pane -p ${TMUX_JOIN:+-J} -t t -S "-${TMUX_SCROLLBACK:-200}"; }

wait_for() { # wait_for PATTERN [SECONDS]: the pane shows PATTERN (grep -E)
    local i
    for ((i = 0; i < ${2:-${TMUX_WAIT_S:-10}} * 20; i++)); do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.05
    done
    return 1
}

keys() { tmux -L "$sock" send-keys -t t "$@"; }

stop_hew() { tmux -L "$sock" kill-server 2>/dev/null; fake_stop; }
