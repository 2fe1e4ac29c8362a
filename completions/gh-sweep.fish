# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_gh_sweep_global_optspecs
    string join \n json v/verbose q/quiet color= h/help V/version
end

function __fish_gh_sweep_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_gh_sweep_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_gh_sweep_using_subcommand
    set -l cmd (__fish_gh_sweep_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -l json -d 'Print the recap as one JSON object'
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -s v -l verbose -d 'Log each request to stderr (never the token)'
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -s q -l quiet -d 'Print only the recap\'s counts'
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -s h -l help -d 'Print help'
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -s V -l version -d 'Print version'
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -f -a "stale-sweep" -d 'Mark idle issues and PRs stale, close those stale long enough, unmark updated ones'
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -f -a "poll" -d 'One merge-on-green tick: enqueue open, non-draft PRs that are eligible to merge'
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -f -a "sweep" -d 'Merge what poll queued, and recover approved PRs whose trigger was lost'
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -f -a "classify" -d 'The read phase alone: print every item\'s disposition and why. Writes nothing'
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -f -a "recap" -d 'Print a stored run\'s recap (default: the latest)'
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -f -a "store" -d 'Look at the state store, or move it between SQLite and PostgreSQL'
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -f -a "completions" -d 'Print shell completions for SHELL'
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -f -a "man" -d 'Print the man page (roff), e.g. `gh-sweep man > ~/.local/share/man/man1/gh-sweep.1`; `gh-sweep man stale-sweep` prints a subcommand\'s page, `--out-dir DIR` writes them all'
complete -c gh-sweep -n "__fish_gh_sweep_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -s R -l repo -d 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh\'s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l only -d 'Only these items, as the recap prints them: \'o/r#12,#15,#40-#44\'; \'@FILE\' reads them from a file (commas or line breaks between them), \'-\' from standard input' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l write-interval -d 'Seconds between two writes [default: 1]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l max-writes -d 'Send at most this many writes; items past the cap stay unfinished' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l max-wait -d 'With --yes, the longest wait for GitHub\'s write ceilings (80 a minute, 500 an hour per account); past it the rest stays unfinished for the next run [default: 600]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l item-failure-budget -d 'Item failures tolerated in the read phase: N, P% of the pool, or \'max(N, P%)\' [default: max(3, 10%)]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l api-url -d 'GitHub API base URL [default: GITHUB_API_URL, GH_HOST, or https://api.github.com]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l read-api -d 'Which API GitHub\'s facts are read with: graphql or rest (writes are always REST\'s) [default: read_api in the config, or graphql]' -r -f -a "graphql\t''
rest\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l config -d 'Config file [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l db -d 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l snapshot -d 'Read from a saved snapshot instead of GitHub; implies --dry-run' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l save-snapshot -d 'Save every GitHub answer this run read to FILE, for --snapshot later' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l now -d 'The run\'s clock, as RFC 3339, to replay a situation: classify and dry runs only (a run that may write uses the real clock) [default: now]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l from-workflow -d 'Take the [stale] rules from the actions/stale step of this workflow file (its `with:` inputs, in snake_case), over the config file\'s' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l dry-run -d 'Read, classify and show the planned writes; write nothing'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -s y -l yes -d 'Write without asking (needed when not on a terminal)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l from-action-inputs -d 'Take the [stale] rules from actions/stale\'s inputs as gh-sweep\'s action passes them (GH_SWEEP_INPUT_DAYS_BEFORE_STALE, ...), read the same way as --from-workflow'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l print-config -d 'Print the [stale] table in effect (from --from-workflow, else the config) and exit, reading nothing from GitHub'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -l json -d 'Print the recap as one JSON object'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -s v -l verbose -d 'Log each request to stderr (never the token)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -s q -l quiet -d 'Print only the recap\'s counts'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand stale-sweep" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -s R -l repo -d 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh\'s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l only -d 'Only these items, as the recap prints them: \'o/r#12,#15,#40-#44\'; \'@FILE\' reads them from a file (commas or line breaks between them), \'-\' from standard input' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l org -d 'Every repository of this organisation (repeatable), found with the search API' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l write-interval -d 'Seconds between two writes [default: 1]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l max-writes -d 'Send at most this many writes; items past the cap stay unfinished' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l max-wait -d 'With --yes, the longest wait for GitHub\'s write ceilings (80 a minute, 500 an hour per account); past it the rest stays unfinished for the next run [default: 600]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l item-failure-budget -d 'Item failures tolerated in the read phase: N, P% of the pool, or \'max(N, P%)\' [default: max(3, 10%)]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l api-url -d 'GitHub API base URL [default: GITHUB_API_URL, GH_HOST, or https://api.github.com]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l read-api -d 'Which API GitHub\'s facts are read with: graphql or rest (writes are always REST\'s) [default: read_api in the config, or graphql]' -r -f -a "graphql\t''
rest\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l config -d 'Config file [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l db -d 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l snapshot -d 'Read from a saved snapshot instead of GitHub; implies --dry-run' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l save-snapshot -d 'Save every GitHub answer this run read to FILE, for --snapshot later' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l now -d 'The run\'s clock, as RFC 3339, to replay a situation: classify and dry runs only (a run that may write uses the real clock) [default: now]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l dry-run -d 'Read, classify and show the planned writes; write nothing'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -s y -l yes -d 'Write without asking (needed when not on a terminal)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l confirm -d 'Ask before enqueueing (enqueueing is local, so it is not asked by default)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -l json -d 'Print the recap as one JSON object'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -s v -l verbose -d 'Log each request to stderr (never the token)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -s q -l quiet -d 'Print only the recap\'s counts'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand poll" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -s R -l repo -d 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh\'s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l only -d 'Only these items, as the recap prints them: \'o/r#12,#15,#40-#44\'; \'@FILE\' reads them from a file (commas or line breaks between them), \'-\' from standard input' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l write-interval -d 'Seconds between two writes [default: 1]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l max-writes -d 'Send at most this many writes; items past the cap stay unfinished' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l max-wait -d 'With --yes, the longest wait for GitHub\'s write ceilings (80 a minute, 500 an hour per account); past it the rest stays unfinished for the next run [default: 600]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l item-failure-budget -d 'Item failures tolerated in the read phase: N, P% of the pool, or \'max(N, P%)\' [default: max(3, 10%)]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l api-url -d 'GitHub API base URL [default: GITHUB_API_URL, GH_HOST, or https://api.github.com]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l read-api -d 'Which API GitHub\'s facts are read with: graphql or rest (writes are always REST\'s) [default: read_api in the config, or graphql]' -r -f -a "graphql\t''
rest\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l config -d 'Config file [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l db -d 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l snapshot -d 'Read from a saved snapshot instead of GitHub; implies --dry-run' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l save-snapshot -d 'Save every GitHub answer this run read to FILE, for --snapshot later' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l now -d 'The run\'s clock, as RFC 3339, to replay a situation: classify and dry runs only (a run that may write uses the real clock) [default: now]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l dry-run -d 'Read, classify and show the planned writes; write nothing'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -s y -l yes -d 'Write without asking (needed when not on a terminal)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -l json -d 'Print the recap as one JSON object'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -s v -l verbose -d 'Log each request to stderr (never the token)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -s q -l quiet -d 'Print only the recap\'s counts'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand sweep" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and not __fish_seen_subcommand_from stale merge help" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and not __fish_seen_subcommand_from stale merge help" -l json -d 'Print the recap as one JSON object'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and not __fish_seen_subcommand_from stale merge help" -s v -l verbose -d 'Log each request to stderr (never the token)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and not __fish_seen_subcommand_from stale merge help" -s q -l quiet -d 'Print only the recap\'s counts'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and not __fish_seen_subcommand_from stale merge help" -s h -l help -d 'Print help'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and not __fish_seen_subcommand_from stale merge help" -f -a "stale" -d 'Classify issues and PRs by the stale rules: mark-stale, close, unmark, keep, exempt'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and not __fish_seen_subcommand_from stale merge help" -f -a "merge" -d 'Explain for every open PR why `poll` would or would not enqueue its merge: the first unmet condition, in words. Reads the queue, never changes it'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and not __fish_seen_subcommand_from stale merge help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -s R -l repo -d 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh\'s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l only -d 'Only these items, as the recap prints them: \'o/r#12,#15,#40-#44\'; \'@FILE\' reads them from a file (commas or line breaks between them), \'-\' from standard input' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l item-failure-budget -d 'Item failures tolerated in the read phase: N, P% of the pool, or \'max(N, P%)\' [default: max(3, 10%)]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l api-url -d 'GitHub API base URL [default: GITHUB_API_URL, GH_HOST, or https://api.github.com]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l read-api -d 'Which API GitHub\'s facts are read with: graphql or rest (writes are always REST\'s) [default: read_api in the config, or graphql]' -r -f -a "graphql\t''
rest\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l config -d 'Config file [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l db -d 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l snapshot -d 'Read from a saved snapshot instead of GitHub; implies --dry-run' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l save-snapshot -d 'Save every GitHub answer this run read to FILE, for --snapshot later' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l now -d 'The run\'s clock, as RFC 3339, to replay a situation: classify and dry runs only (a run that may write uses the real clock) [default: now]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l from-workflow -d 'Take the [stale] rules from the actions/stale step of this workflow file (its `with:` inputs, in snake_case), over the config file\'s' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l dry-run -d 'Read, classify and show the planned writes; write nothing'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l from-action-inputs -d 'Take the [stale] rules from actions/stale\'s inputs as gh-sweep\'s action passes them (GH_SWEEP_INPUT_DAYS_BEFORE_STALE, ...), read the same way as --from-workflow'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l print-config -d 'Print the [stale] table in effect (from --from-workflow, else the config) and exit, reading nothing from GitHub'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -l json -d 'Print the recap as one JSON object'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -s v -l verbose -d 'Log each request to stderr (never the token)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -s q -l quiet -d 'Print only the recap\'s counts'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from stale" -s h -l help -d 'Print help'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -s R -l repo -d 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh\'s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -l only -d 'Only these items, as the recap prints them: \'o/r#12,#15,#40-#44\'; \'@FILE\' reads them from a file (commas or line breaks between them), \'-\' from standard input' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -l org -d 'Every repository of this organisation (repeatable), found with the search API' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -l item-failure-budget -d 'Item failures tolerated in the read phase: N, P% of the pool, or \'max(N, P%)\' [default: max(3, 10%)]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -l api-url -d 'GitHub API base URL [default: GITHUB_API_URL, GH_HOST, or https://api.github.com]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -l read-api -d 'Which API GitHub\'s facts are read with: graphql or rest (writes are always REST\'s) [default: read_api in the config, or graphql]' -r -f -a "graphql\t''
rest\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -l config -d 'Config file [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -l db -d 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -l snapshot -d 'Read from a saved snapshot instead of GitHub; implies --dry-run' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -l save-snapshot -d 'Save every GitHub answer this run read to FILE, for --snapshot later' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -l now -d 'The run\'s clock, as RFC 3339, to replay a situation: classify and dry runs only (a run that may write uses the real clock) [default: now]' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -l dry-run -d 'Read, classify and show the planned writes; write nothing'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -l json -d 'Print the recap as one JSON object'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -s v -l verbose -d 'Log each request to stderr (never the token)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -s q -l quiet -d 'Print only the recap\'s counts'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from merge" -s h -l help -d 'Print help'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from help" -f -a "stale" -d 'Classify issues and PRs by the stale rules: mark-stale, close, unmark, keep, exempt'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from help" -f -a "merge" -d 'Explain for every open PR why `poll` would or would not enqueue its merge: the first unmet condition, in words. Reads the queue, never changes it'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand classify; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand recap" -l acknowledge -d 'Mark an item\'s writes of unknown outcome as checked by hand, so sweeps write to it again' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand recap" -l config -d 'Config file whose `db` names the store [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand recap" -l db -d 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand recap" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand recap" -l list -d 'List recent runs, one line each'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand recap" -l markdown -d 'Print the recap as Markdown (for an issue comment or a job summary)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand recap" -l json -d 'Print the recap as one JSON object'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand recap" -s v -l verbose -d 'Log each request to stderr (never the token)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand recap" -s q -l quiet -d 'Print only the recap\'s counts'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand recap" -s h -l help -d 'Print help'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and not __fish_seen_subcommand_from status copy help" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and not __fish_seen_subcommand_from status copy help" -l json -d 'Print the recap as one JSON object'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and not __fish_seen_subcommand_from status copy help" -s v -l verbose -d 'Log each request to stderr (never the token)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and not __fish_seen_subcommand_from status copy help" -s q -l quiet -d 'Print only the recap\'s counts'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and not __fish_seen_subcommand_from status copy help" -s h -l help -d 'Print help'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and not __fish_seen_subcommand_from status copy help" -f -a "status" -d 'Print the backend, its schema version, the runs at work (host, pid, last heartbeat), the queue by status and the live leases'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and not __fish_seen_subcommand_from status copy help" -f -a "copy" -d 'Copy a store into another: SQLite into PostgreSQL when a second host joins, or back'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and not __fish_seen_subcommand_from status copy help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from status" -l config -d 'Config file whose `db` names the store [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from status" -l db -d 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from status" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from status" -l json -d 'Print the recap as one JSON object'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from status" -s v -l verbose -d 'Log each request to stderr (never the token)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Print only the recap\'s counts'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from copy" -l from -d 'The store to copy from: a SQLite file\'s path or a postgres:// URL' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from copy" -l to -d 'The store to copy into (created and migrated if new): a path or a postgres:// URL' -r
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from copy" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from copy" -l force -d 'Replace what the target already holds (without it, a target with any row is refused)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from copy" -l json -d 'Print the recap as one JSON object'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from copy" -s v -l verbose -d 'Log each request to stderr (never the token)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from copy" -s q -l quiet -d 'Print only the recap\'s counts'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from copy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "status" -d 'Print the backend, its schema version, the runs at work (host, pid, last heartbeat), the queue by status and the live leases'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "copy" -d 'Copy a store into another: SQLite into PostgreSQL when a second host joins, or back'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand completions" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand completions" -l json -d 'Print the recap as one JSON object'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand completions" -s v -l verbose -d 'Log each request to stderr (never the token)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand completions" -s q -l quiet -d 'Print only the recap\'s counts'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand completions" -s h -l help -d 'Print help'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand man" -l out-dir -d 'Write every page (gh-sweep.1, gh-sweep-stale-sweep.1, ...) into DIR, e.g. ~/.local/share/man/man1' -r -F
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand man" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand man" -l json -d 'Print the recap as one JSON object'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand man" -s v -l verbose -d 'Log each request to stderr (never the token)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand man" -s q -l quiet -d 'Print only the recap\'s counts'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand man" -s h -l help -d 'Print help'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand help; and not __fish_seen_subcommand_from stale-sweep poll sweep classify recap store completions man help" -f -a "stale-sweep" -d 'Mark idle issues and PRs stale, close those stale long enough, unmark updated ones'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand help; and not __fish_seen_subcommand_from stale-sweep poll sweep classify recap store completions man help" -f -a "poll" -d 'One merge-on-green tick: enqueue open, non-draft PRs that are eligible to merge'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand help; and not __fish_seen_subcommand_from stale-sweep poll sweep classify recap store completions man help" -f -a "sweep" -d 'Merge what poll queued, and recover approved PRs whose trigger was lost'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand help; and not __fish_seen_subcommand_from stale-sweep poll sweep classify recap store completions man help" -f -a "classify" -d 'The read phase alone: print every item\'s disposition and why. Writes nothing'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand help; and not __fish_seen_subcommand_from stale-sweep poll sweep classify recap store completions man help" -f -a "recap" -d 'Print a stored run\'s recap (default: the latest)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand help; and not __fish_seen_subcommand_from stale-sweep poll sweep classify recap store completions man help" -f -a "store" -d 'Look at the state store, or move it between SQLite and PostgreSQL'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand help; and not __fish_seen_subcommand_from stale-sweep poll sweep classify recap store completions man help" -f -a "completions" -d 'Print shell completions for SHELL'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand help; and not __fish_seen_subcommand_from stale-sweep poll sweep classify recap store completions man help" -f -a "man" -d 'Print the man page (roff), e.g. `gh-sweep man > ~/.local/share/man/man1/gh-sweep.1`; `gh-sweep man stale-sweep` prints a subcommand\'s page, `--out-dir DIR` writes them all'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand help; and not __fish_seen_subcommand_from stale-sweep poll sweep classify recap store completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand help; and __fish_seen_subcommand_from classify" -f -a "stale" -d 'Classify issues and PRs by the stale rules: mark-stale, close, unmark, keep, exempt'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand help; and __fish_seen_subcommand_from classify" -f -a "merge" -d 'Explain for every open PR why `poll` would or would not enqueue its merge: the first unmet condition, in words. Reads the queue, never changes it'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "status" -d 'Print the backend, its schema version, the runs at work (host, pid, last heartbeat), the queue by status and the live leases'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "copy" -d 'Copy a store into another: SQLite into PostgreSQL when a second host joins, or back'
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand completions" -f -a "bash zsh fish powershell"
complete -c gh-sweep -n "__fish_gh_sweep_using_subcommand man" -f -a "stale-sweep classify stale merge poll sweep recap store status copy completions man"
