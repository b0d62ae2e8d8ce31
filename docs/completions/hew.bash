# bash completion for hew, the coding agent — installed as
# share/bash-completion/completions/hew. Completes subcommands, flags and their values.
_hew() {
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    if [[ ${COMP_WORDS[1]-} == mcp && $COMP_CWORD -ge 2 ]]; then
        if [[ $COMP_CWORD -eq 2 ]]; then
            COMPREPLY=($(compgen -W "add remove import list" -- "$cur"))
        elif [[ $prev == --type ]]; then
            COMPREPLY=($(compgen -W "http sse" -- "$cur"))
        elif [[ $cur == -* && ${COMP_WORDS[2]} == list ]]; then
            COMPREPLY=($(compgen -W "--json --cwd --timeout" -- "$cur"))
        elif [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--project --env --timeout --auto-approve --url --header
                --type --help" -- "$cur"))
        elif [[ ${COMP_WORDS[2]} == import ]]; then
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        return
    fi
    if [[ ${COMP_WORDS[1]-} == trust && $COMP_CWORD -ge 2 ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--show --revoke --list --json --help" -- "$cur"))
        else
            COMPREPLY=($(compgen -d -- "$cur"))
        fi
        return
    fi
    case $prev in
        --protocol)
            COMPREPLY=($(compgen -W "anthropic openai-chat openai-responses gemini" -- "$cur"))
            return ;;
        --provider)
            COMPREPLY=($(compgen -W "anthropic openai openai-compatible openrouter deepseek gemini xai groq" -- "$cur"))
            return ;;
        --cwd|--data-dir)
            COMPREPLY=($(compgen -d -- "$cur"))
            return ;;
        -o|--output|--api-key-file)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        -i|--image)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --record|replay)
            COMPREPLY=($(compgen -d -- "$cur"))
            return ;;
        --auto-approve)
            local words="read read-outside edit edit-outside commands all-commands mcp all none"
            local prefix=${cur%,*}
            if [[ $cur == *,* ]]; then
                COMPREPLY=($(compgen -P "$prefix," -W "$words" -- "${cur##*,}"))
            else
                COMPREPLY=($(compgen -W "$words" -- "$cur"))
            fi
            return ;;
        --sandbox)
            COMPREPLY=($(compgen -W "auto read-only workspace-write danger-full-access" -- "$cur"))
            return ;;
        --model|--base-url|--timeout|--retry-delay-ms|--thinking|--resume|--allow-command|--deny-command)
            return ;;
        --max-cost|--max-requests)
            return ;;
        debug)
            COMPREPLY=($(compgen -W "parse sse decode markdown" -- "$cur"))
            return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "-p --print --json -v --verbose --provider --model --base-url --protocol
            --cwd --plan --act --yolo --auto-approve --sandbox --thinking --native-tools --xml-tools
            --timeout --retry-delay-ms --continue --resume --no-config --trust --allow-command
            --max-cost --max-requests -i --image
            --deny-command --data-dir --ephemeral --no-checkpoints --no-mcp -o --output
            --api-key-file --record --version --help" -- "$cur"))
    elif [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W "config doctor history resume export import mcp trust checkpoints
            diff restore debug help replay batch skills acp" -- "$cur"))
    fi
}
complete -F _hew hew
