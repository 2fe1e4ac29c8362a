#!/usr/bin/env python3
"""The removal check: disable each guard in turn and report which tests fail.

A guard no test notices is a guard nobody would miss; every entry here must show at least one
failing test. Run from the repository root: `python3 scripts/removal_check.py [NAME...]`.
The source is restored after each entry."""
import subprocess, sys
checks = [
 ("budget", "src/engine/mod.rs", "if self.settings.budget.exhausted(failures, pool.len()) {\n                    state.stop(", "if false {\n                    state.stop("),
 ("budget-last", "src/engine/mod.rs", "if state.stopped.is_none() && self.settings.budget.exhausted(failures, pool.len())", "if false"),
 ("no-terminal", "src/settings/resolve.rs", "if access == Access::Writes && !dry_run && !args.yes && !interactive {", "if false {"),
 ("unknown-journal", "src/engine/mod.rs", "        let unknown = self.store.unknown_writes(&repos, self.now)?;", "        let unknown: Vec<crate::store::UnknownWrite> = Vec::new();"),
 ("bot", "src/policy/stale.rs", "        && !activity.is_bot\n", "\n"),
 ("viewer", "src/policy/stale.rs", "&& viewer.is_none_or(|viewer| !activity.login.eq_ignore_ascii_case(viewer))", ""),
 ("marker", "src/policy/stale.rs", "        && activity.marker.is_none()\n", "\n"),
 ("notification", "src/policy/stale.rs", "        && !activity.notification\n", "\n"),
 ("close-posted", "src/policy/stale.rs", "if !message.trim().is_empty() && !already_posted {", "if !message.trim().is_empty() {"),
 ("recheck", "src/engine/mod.rs", "let plan = if read_at.elapsed() > self.settings.recheck_after {", "let plan = if false {"),
 ("max-writes", "src/engine/mod.rs", "                if cap_reached || sent + remote > cap {", "                if false {"),
 ("label-404", "src/github/mod.rs", "status: Some(404), ..", "status: Some(4040), .."),
 ("link-loop", "src/github/client.rs", "if !seen.insert(url.clone()) {", "if !seen.insert(url.clone()) && false {"),
 ("401-final", "src/github/client.rs", "        401 => Attempt::Final(ApiError::Auth {", "        401 => Attempt::Retry { wait: None, message: String::new() }, 4010 => Attempt::Final(ApiError::Auth {"),
 # Slow: with this guard gone the client really waits out a 120 s retry-after, several times.
 ("wait-limit", "src/github/client.rs", "if let Some(asked) = wait.filter(|asked| *asked > self.retry.max_wait) {", "if let Some(asked) = wait.filter(|_| false) {"),
 ("label-clock", "src/policy/stale.rs", "    let since = history.label_added_at;\n", "    let since = facts.updated_at;\n"),
 ("activity-possible", "src/policy/stale.rs", "    updated_at > quiet_until + Duration::seconds(QUIET_SLACK_SECONDS)\n", "    let _ = (updated_at, quiet_until); true\n"),
 ("store-mark", "src/engine/stale.rs", "        let known = store\n            .stale_mark(item, label)", "        let known = store\n            .stale_mark(item, \"no such label\")"),
 ("unexplained", "src/engine/stale.rs", "            activity.push(update);", "            let _ = update;"),
 ("only-repo", "src/settings/pool.rs", "if let Some(stranger) = items.iter().find(|item| !repos.contains(&item.repo)) {", "if let Some(stranger) = items.iter().find(|_| false) {"),
 ("write-stop", "src/engine/mod.rs", "                    state.stop(Stop::WriteFailed, format!(\"{item}: {reason}\"));", "                    let _ = &reason;"),
 ("retries", "src/github/client.rs", "                    if attempt >= self.retry.retries {", "                    if true {"),
 ("held", "src/engine/merge.rs", "if let Some(why) = merge::held(&facts.title, &facts.labels, self.rules) {", "if let Some(why) = None::<String> {"),
 ("in-flight", "src/engine/merge.rs", ".find(|row| merge::in_flight(&row.status))", ".find(|_| false)"),
 ("backoff", "src/engine/merge.rs", "if let Some(why) = backoff::backed_off(&failures, &head, window, now) {", "if let Some(why) = None::<String> {"),
 ("draft-in-code", "src/engine/merge.rs", "&& entry.get(\"draft\").and_then(Value::as_bool) == Some(true)", "&& false"),
 ("draft-confirm", "src/engine/merge.rs", "            if read.draft == Some(true) {", "            if false {"),
 ("draft-unknown", "src/engine/merge.rs", "        if !draft_confirmed {", "        if false {"),
 ("search-windows", "src/engine/merge.rs", "        if first.total <= SEARCH_CAP {", "        if true {"),
 ("rename", "src/policy/merge.rs", ".chain(file.previous.as_ref())", ".chain(None)"),
 ("newest-run", "src/policy/merge.rs", "if (run.started_at, run.id) > (kept.started_at, kept.id) {", "if false {"),
 ("first-unmet", "src/engine/merge.rs", "unmet.get_or_insert((*rule, why));", "let _ = why;"),
 ("merge-call", "src/github/mod.rs", "        Write::Merge { sha, method } => client", "        Write::Merge { .. } => Ok(None),\n        #[allow(unreachable_patterns)]\n        Write::Merge { sha, method } => client"),
 ("merge-sha", "src/github/mod.rs", "Some(&json!({ \"sha\": sha, \"merge_method\": method })),", "Some(&json!({ \"merge_method\": method })),"),
 ("admit-budget", "src/engine/sweep.rs", "!marked && budget_policy::allows(&budget, gate.stamp(), rules, now).is_ok()", "{ let _ = (marked, budget); true }"),
 ("recovery", "src/engine/sweep.rs", "        if !self.rules.enabled {\n            return Ok(due);", "        if true {\n            return Ok(due);"),
 ("settle", "src/policy/sweep.rs", "        if now - stamp < rules.settle() {", "        if now - stamp < Duration::zero() {"),
 ("reconcile", "src/engine/sweep.rs", "        if !write.action.starts_with(\"merge \") {", "        if true {"),
 ("changes-clear", "src/policy/sweep.rs", "        Err(why) if why.ends_with(\"requested changes\") => Some(Route::ChangesRequested(why)),", ""),
 ("not-open-spends", "src/engine/sweep.rs", "&budget_policy::spent(&budget, stamp, self.rules, self.now),", "&budget,"),
 ("mergeable-null", "src/policy/sweep.rs", "            \"GitHub is still computing whether it can merge (mergeable_state unknown)\",\n            false,", "            \"GitHub is still computing whether it can merge (mergeable_state unknown)\",\n            true,"),
 # Issue 9, merges: only what GitHub itself calls mergeable.
 ("blocked", "src/policy/sweep.rs", "(Some(true), Some(\"blocked\")) => defer(BLOCKED, true),", "(Some(true), Some(\"blocked\")) => None,"),
 ("unstable", "src/policy/sweep.rs", "        (Some(true), Some(\"unstable\")) => defer(", "        (Some(true), Some(\"unstable\")) => None, (Some(true), Some(\"unstable-\")) => defer("),
 ("blocked-rules", "src/engine/sweep.rs", "                    why.push_str(&format!(\"; {rules}\"));", "                    let _ = rules;"),
 ("write-access", "src/policy/merge.rs", "Access::Without(role) => strangers.push((review, role)),", "Access::Without(_) => counted.push(review),"),
 ("stranger-blocks", "src/policy/merge.rs", "    if let Some(blocking) = counted\n        .iter()", "    if let Some(blocking) = verdicts(reviews)\n        .iter()"),
 ("permission-unknown", "src/policy/merge.rs", "    if let Some((review, why)) = unknown.first() {", "    if let Some((review, why)) = unknown.first().filter(|_| false) {"),
 ("permission-once", "src/engine/reads.rs", "        if let Some(known) = self.access.get(&key) {", "        if let Some(known) = self.access.get(&key).filter(|_| false) {"),
 ("permission-403", "src/engine/reads.rs", "        ApiError::Auth {\n            status: 403,", "        ApiError::Auth {\n            status: 4030,"),
 ("dismissed", "src/policy/merge.rs", "            \"APPROVED\" | \"CHANGES_REQUESTED\" | \"DISMISSED\"\n        )\n    }) {\n        match newest", "            \"APPROVED\" | \"CHANGES_REQUESTED\"\n        )\n    }) {\n        match newest"),
 ("per-workflow", "src/policy/merge.rs", ".find(|(kept_group, kept)| *kept_group == group && kept.name == run.name)", ".find(|(_, kept)| kept.name == run.name)"),
 ("action-required", "src/policy/merge.rs", "            if conclusion == \"action_required\" {", "            if false {"),
 ("suite-has-runs", "src/policy/merge.rs", "        if suite.runs > 0 || !unfinished(&suite.status) {", "        if !unfinished(&suite.status) {"),
 ("orphan-age", "src/policy/merge.rs", "            Some(waited) if waited >= orphan => {}", "            Some(_) => {}"),
 ("orphan-ignored", "src/policy/merge.rs", "            Some(waited) if waited >= orphan => {}", "            Some(waited) if waited >= orphan && false => {}"),
 ("workflow-waiting", "src/policy/merge.rs", "                        .filter(|run| unfinished(&run.status))", "                        .filter(|_| false)"),
 ("required-checks", "src/policy/merge.rs", "        if !present {", "        if false {"),
 ("combined-state", "src/policy/merge.rs", "        if statuses.state != \"success\" {", "        if false {"),
 ("status-pages", "src/github/mod.rs", "        Some(\"statuses\"),\n        &enough,", "        Some(\"statuses\"),\n        &|_| true,"),
 ("no-statuses", "src/policy/merge.rs", "    if statuses.total > 0 {", "    if true {"),
 ("method-allowed", "src/policy/merge.rs", "    if allowed.contains(&method) {", "    if true {"),
 ("settings-once", "src/engine/reads.rs", "        if let Some(known) = self.settings.get(repo) {", "        if let Some(known) = self.settings.get(repo).filter(|_| false) {"),
 ("merge-queue", "src/engine/sweep.rs", "        if rules.merge_queue {", "        if false {"),
 ("405-spent", "src/engine/sweep.rs", "let retry = error.status != Some(405) || merge::refusal(&error.message).1;", "let retry = true;"),
 ("own-read-merged", "src/engine/merge.rs", "            if read.merged {", "            if false {"),
 ("own-read-open", "src/engine/merge.rs", "            if !read.open {", "            if false {"),
 ("head-moved", "src/policy/sweep.rs", "    if pull.head != pull.trigger_head {", "    if false {"),
 ("immediate", "src/store/queue.rs", "TransactionBehavior::Immediate", "TransactionBehavior::Deferred"),
 ("refusal-goes-on", "src/engine/sweep.rs", "        if !matches!(error.status, Some(405) | Some(409)) {", "        if true {"),
 ("stale-reconcile", "src/engine/stale.rs", "        let item: ItemRef = write.item.parse().map_err(ReadError::Item)?;\n        let issue", "        if true { return Ok(None); }\n        let item: ItemRef = write.item.parse().map_err(ReadError::Item)?;\n        let issue"),
 ("overlap-check", "src/store/mod.rs", "                if finished || run_alive(pid, host.as_deref()) {", "                if false {"),
 ("list-read-time", "src/engine/mod.rs", "                            read_times.insert(item.clone(), listed_at);", ""),
 ("migrate-immediate", "src/store/mod.rs", ".transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;\n            let version", ".transaction()?;\n            let version"),
 ("etag", "src/github/client.rs", "                    request = request.header(reqwest::header::IF_NONE_MATCH, etag);", "                    let _ = etag;"),
 ("limit-writes", "src/engine/mod.rs", "            if remote > 0 && left < remote as i64 && reset > Utc::now() {", "            if false {"),
 ("limit-reads", "src/github/client.rs", "            if remaining <= 0 && reset > Utc::now() {", "            if false {"),
 ("finish-mark", "src/engine/stale.rs", "        let mark_unfinished = known.is_none()", "        let mark_unfinished = false && known.is_none()"),
 ("finish-mark-live-run", "src/store/mod.rs", "        if !finished && run_alive(pid, host.as_deref()) {\n            return Ok(false);\n        }\n        let commented", "        let _ = (finished, pid, host);\n        let commented"),
 ("oldest-first", "src/github/mod.rs", "state=open&sort=created&direction=asc&per_page=100", "state=open&per_page=100"),
 # Issue 11: signals, the terminal, the clock, completions and man pages.
 ("signal-reads", "src/engine/mod.rs", "if state.interrupted(&format!(\"before reading {item}\")) {", "if false {"),
 ("signal-writes", "src/engine/mod.rs", "if state.interrupted(&format!(\"before the writes of {item}\")) {", "if false {"),
 ("signal-pacing", "src/engine/mod.rs", "interrupt::sleep(wait, first_remote)", "interrupt::sleep(wait, false)"),
 ("signal-reraise", "src/main.rs", "        gh_sweep::signals::end_by(signal);", "        let _ = signal;"),
 ("signal-cursor", "src/main.rs", "        context.ui.restore_terminal();\n        gh_sweep", "        gh_sweep"),
 ("signal-echo", "src/signals.rs", "if !first && !AT_PROMPT.load(Ordering::SeqCst) {", "if !first {"),
 ("tty-prompt", "src/main.rs", "interactive: stdin_terminal && (stderr_terminal || prompt_on_tty),", "interactive: stdin_terminal && stderr_terminal,"),
 ("tty-plan", "src/ui.rs", "        if self.prompt_on_tty {\n            // The plan table", "        if false {\n            // The plan table"),
 ("now-writes", "src/settings/resolve.rs", "if args.now.is_some() && access != Access::ReadOnly && !dry_run {", "if false {"),
 ("bash-names", "src/commands/completions.rs", ".replace(\"gh__subcmd__sweep\", \"gh__sweep\")", ".replace(\"gh__subcmd__sweep\", \"gh__subcmd__sweep\")"),
 ("fish-values", "src/commands/completions.rs", "        Shell::Fish => fish_positional_values(out, &command),", "        Shell::Fish => out,"),
 ("man-no-help", "src/commands/completions.rs", "Cli::command().disable_help_subcommand(true)", "Cli::command()"),
 # Issue 11, points 20 and 9: gh's habits, recap --json --markdown.
 ("repo-host", "src/settings/pool.rs", "host.filter(|host| *host != api_host)", "host.filter(|_| false)"),
 ("clone-cron", "src/settings/pool.rs", "if self.spec.access != Access::ReadOnly && !self.args.dry_run && !self.interactive {", "if false {"),
 ("clone-gh-resolved", "src/settings/paths.rs", "\"gh-resolved\" => remotes[index].2 = Some(value.trim().to_string()),", "\"gh-resolved\" => {}"),
 ("clone-ambiguous", "src/settings/paths.rs", "        1 => Ok(candidates.into_iter().next()),", "        _ if true => Ok(candidates.into_iter().next()),"),
 ("clone-host", "src/settings/paths.rs", "if host == web_host && remotes[index].1.is_none() {", "if remotes[index].1.is_none() {"),
 ("only-bare-number", "src/policy/selector.rs", "None if part.starts_with(|c: char| c.is_ascii_digit()) => (\"\", part),", "None if false => (\"\", part),"),
 ("only-open-range-end", "src/policy/selector.rs", "let end = end.strip_prefix('#').unwrap_or(end);", "let end = end.strip_prefix('#').unwrap_or(\"x\");"),
 ("recap-json-markdown", "src/commands/recap.rs", "if recap.markdown && args.json {", "if false {"),
]
only = sys.argv[1:]
for name, path, old, new in checks:
    if only and name not in only: continue
    src = open(path).read()
    if old not in src:
        print(f"{name}: PATTERN NOT FOUND"); continue
    open(path, "w").write(src.replace(old, new, 1))
    try:
        r = subprocess.run(["cargo", "test", "-q", "--no-fail-fast"], capture_output=True, text=True)
        out = r.stdout + r.stderr
        failed = [l.split()[1] for l in out.splitlines() if l.strip().startswith("---- ")]
        if "error[" in out or "error:" in out and not failed:
            status = "BUILD ERROR " + [l for l in out.splitlines() if "error" in l][0]
        else:
            status = f"{len(failed)} failing: {failed[:4]}"
        print(f"{name}: {status}", flush=True)
    finally:
        open(path, "w").write(src)
