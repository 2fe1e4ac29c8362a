
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'gh-sweep' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'gh-sweep'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'gh-sweep' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the recap as one JSON object')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('stale-sweep', 'stale-sweep', [CompletionResultType]::ParameterValue, 'Mark idle issues and PRs stale, close those stale long enough, unmark updated ones')
            [CompletionResult]::new('poll', 'poll', [CompletionResultType]::ParameterValue, 'One merge-on-green tick: enqueue open, non-draft PRs that are eligible to merge')
            [CompletionResult]::new('sweep', 'sweep', [CompletionResultType]::ParameterValue, 'Merge what poll queued, and recover approved PRs whose trigger was lost')
            [CompletionResult]::new('classify', 'classify', [CompletionResultType]::ParameterValue, 'The read phase alone: print every item''s disposition and why. Writes nothing')
            [CompletionResult]::new('recap', 'recap', [CompletionResultType]::ParameterValue, 'Print a stored run''s recap (default: the latest)')
            [CompletionResult]::new('store', 'store', [CompletionResultType]::ParameterValue, 'Look at the state store, or move it between SQLite and PostgreSQL')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions for SHELL')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff), e.g. `gh-sweep man > ~/.local/share/man/man1/gh-sweep.1`; `gh-sweep man stale-sweep` prints a subcommand''s page, `--out-dir DIR` writes them all')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gh-sweep;stale-sweep' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh''s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh''s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only these items, as the recap prints them: ''o/r#12,#15,#40-#44''; ''@FILE'' reads them from a file (commas or line breaks between them), ''-'' from standard input')
            [CompletionResult]::new('--write-interval', '--write-interval', [CompletionResultType]::ParameterName, 'Seconds between two writes [default: 1]')
            [CompletionResult]::new('--max-writes', '--max-writes', [CompletionResultType]::ParameterName, 'Send at most this many writes; items past the cap stay unfinished')
            [CompletionResult]::new('--max-wait', '--max-wait', [CompletionResultType]::ParameterName, 'With --yes, the longest wait for GitHub''s write ceilings (80 a minute, 500 an hour per account); past it the rest stays unfinished for the next run [default: 600]')
            [CompletionResult]::new('--item-failure-budget', '--item-failure-budget', [CompletionResultType]::ParameterName, 'Item failures tolerated in the read phase: N, P% of the pool, or ''max(N, P%)'' [default: max(3, 10%)]')
            [CompletionResult]::new('--api-url', '--api-url', [CompletionResultType]::ParameterName, 'GitHub API base URL [default: GITHUB_API_URL, GH_HOST, or https://api.github.com]')
            [CompletionResult]::new('--read-api', '--read-api', [CompletionResultType]::ParameterName, 'Which API GitHub''s facts are read with: graphql or rest (writes are always REST''s) [default: read_api in the config, or graphql]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read from a saved snapshot instead of GitHub; implies --dry-run')
            [CompletionResult]::new('--save-snapshot', '--save-snapshot', [CompletionResultType]::ParameterName, 'Save every GitHub answer this run read to FILE, for --snapshot later')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The run''s clock, as RFC 3339, to replay a situation: classify and dry runs only (a run that may write uses the real clock) [default: now]')
            [CompletionResult]::new('--from-workflow', '--from-workflow', [CompletionResultType]::ParameterName, 'Take the [stale] rules from the actions/stale step of this workflow file (its `with:` inputs, in snake_case), over the config file''s')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Read, classify and show the planned writes; write nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Write without asking (needed when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Write without asking (needed when not on a terminal)')
            [CompletionResult]::new('--from-action-inputs', '--from-action-inputs', [CompletionResultType]::ParameterName, 'Take the [stale] rules from actions/stale''s inputs as gh-sweep''s action passes them (GH_SWEEP_INPUT_DAYS_BEFORE_STALE, ...), read the same way as --from-workflow')
            [CompletionResult]::new('--print-config', '--print-config', [CompletionResultType]::ParameterName, 'Print the [stale] table in effect (from --from-workflow, else the config) and exit, reading nothing from GitHub')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the recap as one JSON object')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'gh-sweep;poll' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh''s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh''s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only these items, as the recap prints them: ''o/r#12,#15,#40-#44''; ''@FILE'' reads them from a file (commas or line breaks between them), ''-'' from standard input')
            [CompletionResult]::new('--org', '--org', [CompletionResultType]::ParameterName, 'Every repository of this organisation (repeatable), found with the search API')
            [CompletionResult]::new('--write-interval', '--write-interval', [CompletionResultType]::ParameterName, 'Seconds between two writes [default: 1]')
            [CompletionResult]::new('--max-writes', '--max-writes', [CompletionResultType]::ParameterName, 'Send at most this many writes; items past the cap stay unfinished')
            [CompletionResult]::new('--max-wait', '--max-wait', [CompletionResultType]::ParameterName, 'With --yes, the longest wait for GitHub''s write ceilings (80 a minute, 500 an hour per account); past it the rest stays unfinished for the next run [default: 600]')
            [CompletionResult]::new('--item-failure-budget', '--item-failure-budget', [CompletionResultType]::ParameterName, 'Item failures tolerated in the read phase: N, P% of the pool, or ''max(N, P%)'' [default: max(3, 10%)]')
            [CompletionResult]::new('--api-url', '--api-url', [CompletionResultType]::ParameterName, 'GitHub API base URL [default: GITHUB_API_URL, GH_HOST, or https://api.github.com]')
            [CompletionResult]::new('--read-api', '--read-api', [CompletionResultType]::ParameterName, 'Which API GitHub''s facts are read with: graphql or rest (writes are always REST''s) [default: read_api in the config, or graphql]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read from a saved snapshot instead of GitHub; implies --dry-run')
            [CompletionResult]::new('--save-snapshot', '--save-snapshot', [CompletionResultType]::ParameterName, 'Save every GitHub answer this run read to FILE, for --snapshot later')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The run''s clock, as RFC 3339, to replay a situation: classify and dry runs only (a run that may write uses the real clock) [default: now]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Read, classify and show the planned writes; write nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Write without asking (needed when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Write without asking (needed when not on a terminal)')
            [CompletionResult]::new('--confirm', '--confirm', [CompletionResultType]::ParameterName, 'Ask before enqueueing (enqueueing is local, so it is not asked by default)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the recap as one JSON object')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'gh-sweep;sweep' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh''s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh''s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only these items, as the recap prints them: ''o/r#12,#15,#40-#44''; ''@FILE'' reads them from a file (commas or line breaks between them), ''-'' from standard input')
            [CompletionResult]::new('--write-interval', '--write-interval', [CompletionResultType]::ParameterName, 'Seconds between two writes [default: 1]')
            [CompletionResult]::new('--max-writes', '--max-writes', [CompletionResultType]::ParameterName, 'Send at most this many writes; items past the cap stay unfinished')
            [CompletionResult]::new('--max-wait', '--max-wait', [CompletionResultType]::ParameterName, 'With --yes, the longest wait for GitHub''s write ceilings (80 a minute, 500 an hour per account); past it the rest stays unfinished for the next run [default: 600]')
            [CompletionResult]::new('--item-failure-budget', '--item-failure-budget', [CompletionResultType]::ParameterName, 'Item failures tolerated in the read phase: N, P% of the pool, or ''max(N, P%)'' [default: max(3, 10%)]')
            [CompletionResult]::new('--api-url', '--api-url', [CompletionResultType]::ParameterName, 'GitHub API base URL [default: GITHUB_API_URL, GH_HOST, or https://api.github.com]')
            [CompletionResult]::new('--read-api', '--read-api', [CompletionResultType]::ParameterName, 'Which API GitHub''s facts are read with: graphql or rest (writes are always REST''s) [default: read_api in the config, or graphql]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read from a saved snapshot instead of GitHub; implies --dry-run')
            [CompletionResult]::new('--save-snapshot', '--save-snapshot', [CompletionResultType]::ParameterName, 'Save every GitHub answer this run read to FILE, for --snapshot later')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The run''s clock, as RFC 3339, to replay a situation: classify and dry runs only (a run that may write uses the real clock) [default: now]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Read, classify and show the planned writes; write nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Write without asking (needed when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Write without asking (needed when not on a terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the recap as one JSON object')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'gh-sweep;classify' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the recap as one JSON object')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('stale', 'stale', [CompletionResultType]::ParameterValue, 'Classify issues and PRs by the stale rules: mark-stale, close, unmark, keep, exempt')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Explain for every open PR why `poll` would or would not enqueue its merge: the first unmet condition, in words. Reads the queue, never changes it')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gh-sweep;classify;stale' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh''s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh''s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only these items, as the recap prints them: ''o/r#12,#15,#40-#44''; ''@FILE'' reads them from a file (commas or line breaks between them), ''-'' from standard input')
            [CompletionResult]::new('--item-failure-budget', '--item-failure-budget', [CompletionResultType]::ParameterName, 'Item failures tolerated in the read phase: N, P% of the pool, or ''max(N, P%)'' [default: max(3, 10%)]')
            [CompletionResult]::new('--api-url', '--api-url', [CompletionResultType]::ParameterName, 'GitHub API base URL [default: GITHUB_API_URL, GH_HOST, or https://api.github.com]')
            [CompletionResult]::new('--read-api', '--read-api', [CompletionResultType]::ParameterName, 'Which API GitHub''s facts are read with: graphql or rest (writes are always REST''s) [default: read_api in the config, or graphql]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read from a saved snapshot instead of GitHub; implies --dry-run')
            [CompletionResult]::new('--save-snapshot', '--save-snapshot', [CompletionResultType]::ParameterName, 'Save every GitHub answer this run read to FILE, for --snapshot later')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The run''s clock, as RFC 3339, to replay a situation: classify and dry runs only (a run that may write uses the real clock) [default: now]')
            [CompletionResult]::new('--from-workflow', '--from-workflow', [CompletionResultType]::ParameterName, 'Take the [stale] rules from the actions/stale step of this workflow file (its `with:` inputs, in snake_case), over the config file''s')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Read, classify and show the planned writes; write nothing')
            [CompletionResult]::new('--from-action-inputs', '--from-action-inputs', [CompletionResultType]::ParameterName, 'Take the [stale] rules from actions/stale''s inputs as gh-sweep''s action passes them (GH_SWEEP_INPUT_DAYS_BEFORE_STALE, ...), read the same way as --from-workflow')
            [CompletionResult]::new('--print-config', '--print-config', [CompletionResultType]::ParameterName, 'Print the [stale] table in effect (from --from-workflow, else the config) and exit, reading nothing from GitHub')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the recap as one JSON object')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'gh-sweep;classify;merge' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh''s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Repository to sweep, as [HOST/]OWNER/NAME or a URL, as gh''s -R takes it (repeatable) [default: inside a git clone, the repository gh would use]')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only these items, as the recap prints them: ''o/r#12,#15,#40-#44''; ''@FILE'' reads them from a file (commas or line breaks between them), ''-'' from standard input')
            [CompletionResult]::new('--org', '--org', [CompletionResultType]::ParameterName, 'Every repository of this organisation (repeatable), found with the search API')
            [CompletionResult]::new('--item-failure-budget', '--item-failure-budget', [CompletionResultType]::ParameterName, 'Item failures tolerated in the read phase: N, P% of the pool, or ''max(N, P%)'' [default: max(3, 10%)]')
            [CompletionResult]::new('--api-url', '--api-url', [CompletionResultType]::ParameterName, 'GitHub API base URL [default: GITHUB_API_URL, GH_HOST, or https://api.github.com]')
            [CompletionResult]::new('--read-api', '--read-api', [CompletionResultType]::ParameterName, 'Which API GitHub''s facts are read with: graphql or rest (writes are always REST''s) [default: read_api in the config, or graphql]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read from a saved snapshot instead of GitHub; implies --dry-run')
            [CompletionResult]::new('--save-snapshot', '--save-snapshot', [CompletionResultType]::ParameterName, 'Save every GitHub answer this run read to FILE, for --snapshot later')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The run''s clock, as RFC 3339, to replay a situation: classify and dry runs only (a run that may write uses the real clock) [default: now]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Read, classify and show the planned writes; write nothing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the recap as one JSON object')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'gh-sweep;classify;help' {
            [CompletionResult]::new('stale', 'stale', [CompletionResultType]::ParameterValue, 'Classify issues and PRs by the stale rules: mark-stale, close, unmark, keep, exempt')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Explain for every open PR why `poll` would or would not enqueue its merge: the first unmet condition, in words. Reads the queue, never changes it')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gh-sweep;classify;help;stale' {
            break
        }
        'gh-sweep;classify;help;merge' {
            break
        }
        'gh-sweep;classify;help;help' {
            break
        }
        'gh-sweep;recap' {
            [CompletionResult]::new('--acknowledge', '--acknowledge', [CompletionResultType]::ParameterName, 'Mark an item''s writes of unknown outcome as checked by hand, so sweeps write to it again')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file whose `db` names the store [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List recent runs, one line each')
            [CompletionResult]::new('--markdown', '--markdown', [CompletionResultType]::ParameterName, 'Print the recap as Markdown (for an issue comment or a job summary)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the recap as one JSON object')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'gh-sweep;store' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the recap as one JSON object')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Print the backend, its schema version, the runs at work (host, pid, last heartbeat), the queue by status and the live leases')
            [CompletionResult]::new('copy', 'copy', [CompletionResultType]::ParameterValue, 'Copy a store into another: SQLite into PostgreSQL when a second host joins, or back')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gh-sweep;store;status' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file whose `db` names the store [default: .github/gh-sweep.toml, then $XDG_CONFIG_HOME/gh-sweep/config.toml]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'State database: a SQLite file, or postgres://USER@HOST/DB?sslmode=verify-full for a store several hosts share [default: $XDG_STATE_HOME/gh-sweep/state.db]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the recap as one JSON object')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'gh-sweep;store;copy' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'The store to copy from: a SQLite file''s path or a postgres:// URL')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The store to copy into (created and migrated if new): a path or a postgres:// URL')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace what the target already holds (without it, a target with any row is refused)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the recap as one JSON object')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'gh-sweep;store;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Print the backend, its schema version, the runs at work (host, pid, last heartbeat), the queue by status and the live leases')
            [CompletionResult]::new('copy', 'copy', [CompletionResultType]::ParameterValue, 'Copy a store into another: SQLite into PostgreSQL when a second host joins, or back')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gh-sweep;store;help;status' {
            break
        }
        'gh-sweep;store;help;copy' {
            break
        }
        'gh-sweep;store;help;help' {
            break
        }
        'gh-sweep;completions' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the recap as one JSON object')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'gh-sweep;man' {
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'Write every page (gh-sweep.1, gh-sweep-stale-sweep.1, ...) into DIR, e.g. ~/.local/share/man/man1')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (on a terminal, unless NO_COLOR is set), always or never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the recap as one JSON object')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each request to stderr (never the token)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the recap''s counts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'gh-sweep;help' {
            [CompletionResult]::new('stale-sweep', 'stale-sweep', [CompletionResultType]::ParameterValue, 'Mark idle issues and PRs stale, close those stale long enough, unmark updated ones')
            [CompletionResult]::new('poll', 'poll', [CompletionResultType]::ParameterValue, 'One merge-on-green tick: enqueue open, non-draft PRs that are eligible to merge')
            [CompletionResult]::new('sweep', 'sweep', [CompletionResultType]::ParameterValue, 'Merge what poll queued, and recover approved PRs whose trigger was lost')
            [CompletionResult]::new('classify', 'classify', [CompletionResultType]::ParameterValue, 'The read phase alone: print every item''s disposition and why. Writes nothing')
            [CompletionResult]::new('recap', 'recap', [CompletionResultType]::ParameterValue, 'Print a stored run''s recap (default: the latest)')
            [CompletionResult]::new('store', 'store', [CompletionResultType]::ParameterValue, 'Look at the state store, or move it between SQLite and PostgreSQL')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions for SHELL')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff), e.g. `gh-sweep man > ~/.local/share/man/man1/gh-sweep.1`; `gh-sweep man stale-sweep` prints a subcommand''s page, `--out-dir DIR` writes them all')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gh-sweep;help;stale-sweep' {
            break
        }
        'gh-sweep;help;poll' {
            break
        }
        'gh-sweep;help;sweep' {
            break
        }
        'gh-sweep;help;classify' {
            [CompletionResult]::new('stale', 'stale', [CompletionResultType]::ParameterValue, 'Classify issues and PRs by the stale rules: mark-stale, close, unmark, keep, exempt')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Explain for every open PR why `poll` would or would not enqueue its merge: the first unmet condition, in words. Reads the queue, never changes it')
            break
        }
        'gh-sweep;help;classify;stale' {
            break
        }
        'gh-sweep;help;classify;merge' {
            break
        }
        'gh-sweep;help;recap' {
            break
        }
        'gh-sweep;help;store' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Print the backend, its schema version, the runs at work (host, pid, last heartbeat), the queue by status and the live leases')
            [CompletionResult]::new('copy', 'copy', [CompletionResultType]::ParameterValue, 'Copy a store into another: SQLite into PostgreSQL when a second host joins, or back')
            break
        }
        'gh-sweep;help;store;status' {
            break
        }
        'gh-sweep;help;store;copy' {
            break
        }
        'gh-sweep;help;completions' {
            break
        }
        'gh-sweep;help;man' {
            break
        }
        'gh-sweep;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
