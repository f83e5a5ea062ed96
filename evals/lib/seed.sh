#!/usr/bin/env bash
# The scratch scaffold of every case: a fresh data repo in ./kb-data of the run's work folder, seeded with entries
# of fixed ids (so a grader can name them), committed with the git CLI, and made the run's default data repo
# through the config file in the run's own HOME. Nothing outside the run's folders is touched.
#   bash seed.sh [compaction|promotion]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KB="$PWD/kb-data"
export GIT_AUTHOR_NAME="git-kb eval" GIT_AUTHOR_EMAIL="eval@example.invalid" GIT_COMMITTER_NAME="git-kb eval" GIT_COMMITTER_EMAIL="eval@example.invalid"
node "$ROOT/bin/git-kb" --data "$KB" init >/dev/null
git -C "$KB" config user.name "git-kb eval"
git -C "$KB" config user.email "eval@example.invalid"
mkdir -p "$KB/entries"
entry() { # id type title tags created body [extra front matter]
  printf -- '---\nid: %s\ntitle: %s\ntype: %s\ntags: [%s]\ncreated: %s\nupdated: %s\n%s---\n\n%s\n' "$1" "$3" "$2" "$4" "$5" "$5" "${7:-}" "$6" > "$KB/entries/$1.md"
}
entry kb-evalpg0001 lesson_learned "Postgres autovacuum tuning for large tables" "postgres, database" 2026-11-20T10:00:00Z \
  "Lower autovacuum_vacuum_scale_factor to 0.01 on tables over ten million rows and raise autovacuum_vacuum_cost_limit."
entry kb-evalredis01 factual_reference "Redis eviction policy for caches" "redis, cache" 2026-11-21T10:00:00Z \
  "Use allkeys-lru for pure caches; volatile-lru only evicts keys that carry a TTL."
entry kb-evaldec001 decision "Keep Terraform state in S3 with locking" "terraform, infrastructure" 2026-11-22T10:00:00Z \
  "Terraform state lives in the S3 backend with a DynamoDB lock table keyed on LockID, one state per environment."
entry kb-evalk8s001 lesson_learned "Kubernetes ingress timeouts for long uploads" "kubernetes, ingress" 2026-11-23T10:00:00Z \
  "The nginx ingress proxy-read-timeout annotation defaults to 60 seconds; long uploads need 600."
case "${1:-}" in
  compaction)
    # A kernel entry over a small kernel budget: bullets with bold lead-ins and links, and wordy tails to trim.
    entry kb-evalkern01 pattern_convention "House style for written prose" "style, writing" 2026-11-24T10:00:00Z \
"# House style

- **Plain words**: write use, not leverage, and say what a thing does, because readers skim and a plain word is read faster than a clever one, every single time.
- **Short sentences**: one idea a sentence, since a long sentence with several clauses makes the reader hold too much in mind at once before reaching the point.
- **Links**: point to the source, see [[kb-evaldec001]] for how decisions are written down and kept, so that a later reader can find the reasoning without asking anyone.
- **Numbers**: give the unit and the date of a measurement, because a number without them cannot be compared with any later number at all." "kernel: true
"
    node -e 'const f=process.argv[1];const j=JSON.parse(require("fs").readFileSync(f,"utf8"));j.budgets={kernel_chars:400};require("fs").writeFileSync(f,JSON.stringify(j,null,2)+"\n")' "$KB/kb.json"
    ;;
  promotion)
    entry kb-evalrec001 lesson_learned "pnpm install needs --frozen-lockfile in CI" "pnpm, ci" 2026-11-10T10:00:00Z \
"Without --frozen-lockfile CI rewrote the lockfile and the build used other versions.

Seen again 2026-11-15:
It happened again on the release branch.

Seen again 2026-11-25:
And a third time in the docs job." "pattern_key: pnpm-frozen-lockfile
recurrences: 3
seen: [2026-11-10, 2026-11-15, 2026-11-25]
"
    ;;
esac
git -C "$KB" add -A
git -C "$KB" commit -q -m "eval seed"
git -C "$KB" tag eval-seed
node "$ROOT/bin/git-kb" --data "$KB" lint >/dev/null
mkdir -p "$HOME/.config/git-kb"
printf '{"data_dir": "%s"}\n' "$KB" > "$HOME/.config/git-kb/config.json"
