_gh_sweep_files() {
    local IFS=$'\n' entry
    COMPREPLY=()
    for entry in $(compgen -f -- "$1"); do
        if [[ -d "$entry" ]]; then
            COMPREPLY+=("$entry/")
        else
            COMPREPLY+=("$entry")
        fi
    done
    if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]]; then
        compopt -o nospace 2>/dev/null
    fi
    return 0
}
_gh__sweep() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="gh__sweep"
                ;;
            gh__sweep,classify)
                cmd="gh__sweep__subcmd__classify"
                ;;
            gh__sweep,completions)
                cmd="gh__sweep__subcmd__completions"
                ;;
            gh__sweep,help)
                cmd="gh__sweep__subcmd__help"
                ;;
            gh__sweep,man)
                cmd="gh__sweep__subcmd__man"
                ;;
            gh__sweep,poll)
                cmd="gh__sweep__subcmd__poll"
                ;;
            gh__sweep,recap)
                cmd="gh__sweep__subcmd__recap"
                ;;
            gh__sweep,stale-sweep)
                cmd="gh__sweep__subcmd__stale__subcmd__sweep"
                ;;
            gh__sweep,store)
                cmd="gh__sweep__subcmd__store"
                ;;
            gh__sweep,sweep)
                cmd="gh__sweep__subcmd__sweep"
                ;;
            gh__sweep__subcmd__classify,help)
                cmd="gh__sweep__subcmd__classify__subcmd__help"
                ;;
            gh__sweep__subcmd__classify,merge)
                cmd="gh__sweep__subcmd__classify__subcmd__merge"
                ;;
            gh__sweep__subcmd__classify,stale)
                cmd="gh__sweep__subcmd__classify__subcmd__stale"
                ;;
            gh__sweep__subcmd__classify__subcmd__help,help)
                cmd="gh__sweep__subcmd__classify__subcmd__help__subcmd__help"
                ;;
            gh__sweep__subcmd__classify__subcmd__help,merge)
                cmd="gh__sweep__subcmd__classify__subcmd__help__subcmd__merge"
                ;;
            gh__sweep__subcmd__classify__subcmd__help,stale)
                cmd="gh__sweep__subcmd__classify__subcmd__help__subcmd__stale"
                ;;
            gh__sweep__subcmd__help,classify)
                cmd="gh__sweep__subcmd__help__subcmd__classify"
                ;;
            gh__sweep__subcmd__help,completions)
                cmd="gh__sweep__subcmd__help__subcmd__completions"
                ;;
            gh__sweep__subcmd__help,help)
                cmd="gh__sweep__subcmd__help__subcmd__help"
                ;;
            gh__sweep__subcmd__help,man)
                cmd="gh__sweep__subcmd__help__subcmd__man"
                ;;
            gh__sweep__subcmd__help,poll)
                cmd="gh__sweep__subcmd__help__subcmd__poll"
                ;;
            gh__sweep__subcmd__help,recap)
                cmd="gh__sweep__subcmd__help__subcmd__recap"
                ;;
            gh__sweep__subcmd__help,stale-sweep)
                cmd="gh__sweep__subcmd__help__subcmd__stale__subcmd__sweep"
                ;;
            gh__sweep__subcmd__help,store)
                cmd="gh__sweep__subcmd__help__subcmd__store"
                ;;
            gh__sweep__subcmd__help,sweep)
                cmd="gh__sweep__subcmd__help__subcmd__sweep"
                ;;
            gh__sweep__subcmd__help__subcmd__classify,merge)
                cmd="gh__sweep__subcmd__help__subcmd__classify__subcmd__merge"
                ;;
            gh__sweep__subcmd__help__subcmd__classify,stale)
                cmd="gh__sweep__subcmd__help__subcmd__classify__subcmd__stale"
                ;;
            gh__sweep__subcmd__help__subcmd__store,copy)
                cmd="gh__sweep__subcmd__help__subcmd__store__subcmd__copy"
                ;;
            gh__sweep__subcmd__help__subcmd__store,status)
                cmd="gh__sweep__subcmd__help__subcmd__store__subcmd__status"
                ;;
            gh__sweep__subcmd__store,copy)
                cmd="gh__sweep__subcmd__store__subcmd__copy"
                ;;
            gh__sweep__subcmd__store,help)
                cmd="gh__sweep__subcmd__store__subcmd__help"
                ;;
            gh__sweep__subcmd__store,status)
                cmd="gh__sweep__subcmd__store__subcmd__status"
                ;;
            gh__sweep__subcmd__store__subcmd__help,copy)
                cmd="gh__sweep__subcmd__store__subcmd__help__subcmd__copy"
                ;;
            gh__sweep__subcmd__store__subcmd__help,help)
                cmd="gh__sweep__subcmd__store__subcmd__help__subcmd__help"
                ;;
            gh__sweep__subcmd__store__subcmd__help,status)
                cmd="gh__sweep__subcmd__store__subcmd__help__subcmd__status"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        gh__sweep)
            opts="-v -q -h -V --json --verbose --quiet --color --help --version stale-sweep poll sweep classify recap store completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__classify)
            opts="-v -q -h --json --verbose --quiet --color --help stale merge help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__classify__subcmd__help)
            opts="stale merge help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__classify__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__classify__subcmd__help__subcmd__merge)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__classify__subcmd__help__subcmd__stale)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__classify__subcmd__merge)
            opts="-R -v -q -h --repo --only --org --dry-run --item-failure-budget --api-url --read-api --config --db --snapshot --save-snapshot --now --json --verbose --quiet --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --repo)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                -R)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --only)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --org)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --item-failure-budget)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --api-url)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --read-api)
                    COMPREPLY=($(compgen -W "graphql rest" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --db)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --snapshot)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --save-snapshot)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --now)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__classify__subcmd__stale)
            opts="-R -v -q -h --repo --only --dry-run --item-failure-budget --api-url --read-api --config --db --snapshot --save-snapshot --now --from-workflow --from-action-inputs --print-config --json --verbose --quiet --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --repo)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                -R)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --only)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --item-failure-budget)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --api-url)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --read-api)
                    COMPREPLY=($(compgen -W "graphql rest" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --db)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --snapshot)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --save-snapshot)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --now)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --from-workflow)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__completions)
            opts="-v -q -h --json --verbose --quiet --color --help bash zsh fish powershell"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help)
            opts="stale-sweep poll sweep classify recap store completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help__subcmd__classify)
            opts="stale merge"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help__subcmd__classify__subcmd__merge)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help__subcmd__classify__subcmd__stale)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help__subcmd__man)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help__subcmd__poll)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help__subcmd__recap)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help__subcmd__stale__subcmd__sweep)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help__subcmd__store)
            opts="status copy"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help__subcmd__store__subcmd__copy)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help__subcmd__store__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__help__subcmd__sweep)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__man)
            opts="-v -q -h --out-dir --json --verbose --quiet --color --help stale-sweep classify stale merge poll sweep recap store status copy completions man"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --out-dir)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__poll)
            opts="-R -y -v -q -h --repo --only --org --dry-run --yes --write-interval --max-writes --max-wait --item-failure-budget --api-url --read-api --config --db --snapshot --save-snapshot --now --confirm --json --verbose --quiet --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --repo)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                -R)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --only)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --org)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --write-interval)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --max-writes)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --max-wait)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --item-failure-budget)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --api-url)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --read-api)
                    COMPREPLY=($(compgen -W "graphql rest" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --db)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --snapshot)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --save-snapshot)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --now)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__recap)
            opts="-v -q -h --list --markdown --acknowledge --config --db --json --verbose --quiet --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --acknowledge)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --config)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --db)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__stale__subcmd__sweep)
            opts="-R -y -v -q -h --repo --only --dry-run --yes --write-interval --max-writes --max-wait --item-failure-budget --api-url --read-api --config --db --snapshot --save-snapshot --now --from-workflow --from-action-inputs --print-config --json --verbose --quiet --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --repo)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                -R)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --only)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --write-interval)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --max-writes)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --max-wait)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --item-failure-budget)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --api-url)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --read-api)
                    COMPREPLY=($(compgen -W "graphql rest" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --db)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --snapshot)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --save-snapshot)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --now)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --from-workflow)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__store)
            opts="-v -q -h --json --verbose --quiet --color --help status copy help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__store__subcmd__copy)
            opts="-v -q -h --from --to --force --json --verbose --quiet --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --from)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --to)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__store__subcmd__help)
            opts="status copy help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__store__subcmd__help__subcmd__copy)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__store__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__store__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__store__subcmd__status)
            opts="-v -q -h --config --db --json --verbose --quiet --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --db)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gh__sweep__subcmd__sweep)
            opts="-R -y -v -q -h --repo --only --dry-run --yes --write-interval --max-writes --max-wait --item-failure-budget --api-url --read-api --config --db --snapshot --save-snapshot --now --json --verbose --quiet --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --repo)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                -R)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --only)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --write-interval)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --max-writes)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --max-wait)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --item-failure-budget)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --api-url)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --read-api)
                    COMPREPLY=($(compgen -W "graphql rest" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --db)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --snapshot)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --save-snapshot)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --now)
                    _gh_sweep_files "${cur}"
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _gh__sweep -o nosort -o bashdefault -o default gh-sweep
else
    complete -F _gh__sweep -o bashdefault -o default gh-sweep
fi
