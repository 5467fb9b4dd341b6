#!/usr/bin/env bash
# locomo-continuity.sh — does a long session keep what was said in it? A LoCoMo development conversation is replayed
# as the turns of ONE chat session (the first speaker's lines are the user's messages, the other speaker's lines the
# fake model's replies, through core/ollamatest's fakeollama) at --num-ctx 4096, so the window cuts again and again.
# Then every question of the conversation is put to `agent prompt`: with --continue (the session that heard it
# all), in a new session, and in a new session given only the room the session's window leaves recall (the floor:
# what recall alone finds in that room). A question counts as recalled when the whole text of each of its evidence turns is inside
# the assembled prompt (history, stored contexts or this turn's recall). Per LoCoMo category, side by side.
#
#   scripts/locomo-continuity.sh                 # conv-26 and conv-30; markdown table on stdout, progress on stderr
#   scripts/locomo-continuity.sh conv-30         # one conversation
#   CONTINUITY_NUM_CTX=8192 scripts/locomo-continuity.sh
#
# The data and LoCoMo's evidence normalisation are read from ../shared/bench at run time (BENCH_DATA, default
# <repo>/../shared/bench/data); nothing of it is copied into the repo. AGENT_BIN (default <repo>/bin/agent, built if
# missing). The replayed workspace starts empty: all the memory it has is the session's own logged turns.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data=${BENCH_DATA:-$root/../shared/bench/data}
[ -d "$data/locomo-dev" ] || { echo "locomo-continuity.sh: no $data/locomo-dev (set BENCH_DATA)" >&2; exit 1; }
scorer=$(cd "$data/.." && pwd)/locomo.py
[ -f "$scorer" ] || { echo "locomo-continuity.sh: no scorer at $scorer (set BENCH_DATA)" >&2; exit 1; }
bin=${AGENT_BIN:-$root/bin/agent}
if [ ! -x "$bin" ]; then
    make -C "$root" build >&2
fi
convs=("$@")
[ ${#convs[@]} -gt 0 ] || convs=(conv-26 conv-30)

work=$(mktemp -d "${TMPDIR:-/tmp}/agent-continuity.XXXXXX")
fake_pid=
cleanup() {
    [ -z "$fake_pid" ] || kill "$fake_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
(cd "$root" && go build -o "$work/fakeollama" ./core/ollamatest/cmd/fakeollama)

for conv in "${convs[@]}"; do
    [ -d "$data/locomo-dev/$conv/logs" ] || { echo "locomo-continuity.sh: no conversation $conv in $data/locomo-dev" >&2; exit 1; }
    ws="$work/$conv"
    mkdir -p "$ws"
    # The replies, in order, for the fake model; the user's messages, one a line (JSON strings).
    python3 - "$data/locomo-dev/$conv" "$ws" <<'PY'
import glob, json, os, re, sys
src, ws = sys.argv[1:]
line_re = re.compile(r"^\*\*(.+?)\*\* \((D\d+:\d+)\): (.*)$")
turns = []
for path in sorted(glob.glob(os.path.join(src, "logs", "*.md"))):
    for line in open(path, encoding="utf-8"):
        m = line_re.match(line.rstrip("\n"))
        if m:
            turns.append(m.groups())
user = turns[0][0]
other = next(s for s, _, _ in turns if s != user)
groups = []  # [messages, replies]: the user's consecutive lines, then the other's
for speaker, _, text in turns:
    if speaker == user and (not groups or groups[-1][1]):
        groups.append([[], []])
    groups[-1][0 if speaker == user else 1].append(text)
with open(os.path.join(ws, "replies.json"), "w") as f:
    json.dump([{"text": "\n\n".join(r) or "ok"} for _, r in groups], f)
with open(os.path.join(ws, "messages.jsonl"), "w") as f:
    for m, _ in groups:
        f.write(json.dumps("\n\n".join(m)) + "\n")
with open(os.path.join(ws, "names"), "w") as f:
    f.write("%s\n%s\n" % (user, other))
print("locomo-continuity: %s: %d turns, %d exchanges (%s to %s)" % (os.path.basename(src), len(turns), len(groups), user, other), file=sys.stderr)
PY
    "$work/fakeollama" -addr 127.0.0.1:0 -default ok "$ws/replies.json" >"$ws/fake.out" 2>&1 &
    fake_pid=$!
    for _ in $(seq 100); do grep -q '127.0.0.1:' "$ws/fake.out" && break; sleep 0.1; done
    export OLLAMA_HOST
    OLLAMA_HOST=$(grep -o '127\.0\.0\.1:[0-9]*' "$ws/fake.out" | head -n 1)
    export AGENT_HOME="$ws/home" AGENT_MODEL=llama3.2 AGENT_NUM_CTX=${CONTINUITY_NUM_CTX:-4096}
    { read -r user; read -r other; } <"$ws/names"
    "$bin" init -q --agent-name "$other" --user-name "$user"
    python3 - "$bin" "$ws/messages.jsonl" <<'PY'
import json, subprocess, sys, time
bin, path = sys.argv[1:]
msgs = [json.loads(l) for l in open(path)]
t0 = time.time()
for i, m in enumerate(msgs):
    subprocess.run([bin, "chat", "-q", "--continue", m], check=True, stdout=subprocess.DEVNULL)
    if (i + 1) % 50 == 0:
        print("locomo-continuity: replayed %d/%d exchanges (%.0f s)" % (i + 1, len(msgs), time.time() - t0), file=sys.stderr)
PY
    kill "$fake_pid"
    wait "$fake_pid" 2>/dev/null || true
    fake_pid=
done

# The questions, asked of the replayed session and of a new one; evidence recall in the assembled prompt.
python3 - "$bin" "$work" "$data/locomo-dev" "$scorer" "${convs[@]}" <<'PY'
import json, os, re, subprocess, sys
bin, work, dev, scorer = sys.argv[1:5]
convs = sys.argv[5:]
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(scorer))
from locomo import CATEGORIES, norm_evidence  # LoCoMo's own evidence-id normalisation

line_re = re.compile(r"^\*\*(.+?)\*\* \((D\d+:\d+)\): (.*)$")
def norm(s):  # case, punctuation and spacing folded, as recall fences and neutralises text
    return " ".join(re.sub(r"[^\w]+", " ", s.lower()).split())

# floor: the question in a new session whose recall has only the room the session's window leaves it (num_ctx less
# the window's tokens, the same reply reserve): what recall alone finds in that room. The session is not lower than it
# when it loses nothing to the window beyond the room the window takes.
modes = {"session": ["--continue"], "new": ["--new"], "floor": ["--new"]}
rows = []  # (category, mode, recalled, prompt tokens)
for conv in convs:
    texts = {}
    for name in sorted(os.listdir(os.path.join(dev, conv, "logs"))):
        for line in open(os.path.join(dev, conv, "logs", name), encoding="utf-8"):
            m = line_re.match(line.rstrip("\n"))
            if m:
                texts[m.group(2)] = norm(m.group(3))
    qa = json.load(open(os.path.join(dev, conv + ".qa.json")))
    env = dict(os.environ, AGENT_HOME=os.path.join(work, conv, "home"), OLLAMA_HOST="127.0.0.1:1")
    env["AGENT_NUM_CTX"] = os.environ.get("CONTINUITY_NUM_CTX", "4096")
    asked = 0
    for q in qa:
        ids, _ = norm_evidence(q.get("evidence") or [], texts)
        if not ids:
            continue
        for mode, flags in modes.items():
            if mode == "floor":  # a new session with the room the session's window leaves its recall
                held = sum(l["tokens"] for l in in_session["layers"] if l["name"] in ("history", "summary"))
                flags = flags + ["--num-ctx", str(in_session["num_ctx"] - held), "--num-predict", str(in_session["reply_reserve"])]
            out = subprocess.run([bin, "prompt", "-q", "--json"] + flags + [q["question"]], env=env,
                                 check=True, capture_output=True, text=True).stdout
            asm = json.loads(out)
            body = norm("\n".join(m["content"] for m in asm["messages"]))  # the question holds no evidence line
            got = all(texts[i] in body for i in ids)
            rows.append((q["category"], mode, got, asm["tokens"]))
            if mode == "session":
                in_session = asm
        asked += 1
    print("locomo-continuity: %s: %d questions asked" % (conv, asked), file=sys.stderr)

groups = [(4, "single-hop"), (1, "multi-hop"), (2, "temporal"), (3, "open-domain"), (None, "overall (cat 1-4)"), (5, "adversarial")]
print("### LoCoMo continuity (%s, num_ctx %s): all evidence inside the assembled prompt\n" % (", ".join(convs), os.environ.get("CONTINUITY_NUM_CTX", "4096")))
print("| category | n | same session (--continue) | new session | new session, with the room the window leaves recall (floor) |\n|---|---|---|---|---|")
for cat, name in groups:
    sel = [r for r in rows if (r[0] == cat if cat else r[0] in (1, 2, 3, 4))]
    n = len(sel) // len(modes)
    if n == 0:
        continue
    cells = ["%.3f" % (sum(r[2] for r in sel if r[1] == mode) / n) for mode in modes]
    label = "%d %s" % (cat, name) if cat else name
    print("| %s | %d | %s |" % (label, n, " | ".join(cells)))
for mode in modes:
    toks = [r[3] for r in rows if r[1] == mode]
    print("\n%s: prompt ~%d tokens on average" % (mode, sum(toks) / len(toks)))
PY
